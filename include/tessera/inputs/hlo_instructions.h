// HLO module text read into instructions: what each computes, from which operands, with which
// attributes (the copies in a module; input_arrays.h: the arrays in it).
//
//   ENTRY %main.1 (x.1: f32[1024,384]) -> f32[384,1024] {
//     %x.1 = f32[1024,384]{1,0:T(8,128)} parameter(0), metadata={op_name="x"}
//     %copy = f32[1024,384]{0,1:T(8,128)S(1)} copy(%x.1), backend_config={...}
//     ROOT %t = (f32[2]{0}, /*index=1*/f32[3]{0}) tuple(f32[2]{0} %a, /*index=1*/%b)
//   }
// -> computation "main.1" (entry) with instructions x.1 (parameter, attribute metadata),
//    copy (operand x.1), t (root, a tuple of two arrays, operands a with its shape written, b).
// HLO prints /*index=N*/ before every fifth element of long tuples and operand lists; comments
// are skipped wherever blanks are. Malformed lines are skipped with a warning, never fatal.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/inputs/shapes_in_text.h"

namespace tessera::inputs {

struct HloOperand {
  std::string name;   // without '%'; "" for a literal (constant(1))
  std::string shape;  // the shape written before the name ("f32[8,100]{1,0}"), "" when none
};

struct HloAttribute {
  std::string key;    // "dimensions", "calls", "kind", "metadata", ...
  std::string value;  // as written: "{1,0}", "%fused_computation", "kLoop"
};

struct HloInstruction {
  std::string computation;         // the computation it is in ("" before any header)
  std::string name;                // without '%'
  std::vector<ShapeToken> result;  // the result's arrays (a tuple's elements, with their index)
  std::string opcode;              // "copy", "transpose", "fusion", "copy-start", ...
  std::vector<HloOperand> operands;
  std::string arguments;  // the operand list as written: "0" for parameter(0)
  std::vector<HloAttribute> attributes;
  bool root = false;
  int64_t line = 0;  // 1-based

  // The value of attribute `key`, or nullopt.
  std::optional<std::string> attribute(std::string_view key) const;
  // The computations it calls, without '%': calls=, to_apply=, body=, condition=,
  // true_computation=, false_computation=, branch_computations={...}, called_computations={...}.
  std::vector<std::string> called_computations() const;
};

struct HloComputationHeader {
  std::string name;  // without '%'
  bool entry = false;
  int64_t line = 0;
};

struct HloModuleText {
  std::vector<HloComputationHeader> computations;
  std::vector<HloInstruction> instructions;  // in text order
  // The entry_computation_layout's arrays (line 0 when the module has none).
  std::vector<std::vector<ShapeToken>> entry_parameters;
  std::vector<ShapeToken> entry_result;
  int64_t entry_layout_line = 0;
  std::vector<std::string> warnings;  // what could not be read, with line numbers
};

// Reads every computation header and instruction. Never throws for malformed text; bounded
// work: at most kMaxInputArrays instructions (a warning says the rest were skipped).
HloModuleText parse_hlo_module(std::string_view text);

}  // namespace tessera::inputs
