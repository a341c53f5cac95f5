// What an HLO module says beside its instructions, for program memory (program_memory.h):
//   HloModule jit_f, is_scheduled=true, input_output_alias={ {0}: (2, {}, may-alias) }, ...
//   FileNames / FunctionNames / FileLocations / StackFrames   (the tables metadata's
//   stack_frame_id=N points into: frame -> file location -> file name and line)
// and each instruction's metadata={op_name="jit(f)/dot_general" source_file="f.py"
// source_line=52} or {op_name=... stack_frame_id=7}.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/inputs/hlo_instructions.h"

namespace tessera::inputs {

// {0}: (2, {}, may-alias): output {0} is parameter 2's buffer (a donated argument).
struct OutputAlias {
  std::vector<int64_t> output_index;
  int64_t parameter = 0;
  std::vector<int64_t> parameter_index;
};

struct HloModuleHeader {
  bool scheduled = false;  // is_scheduled=true: the text's order is the order instructions run
  std::vector<OutputAlias> aliases;
  // Stack frame id -> "file:line" of its own location (the frame metadata names is the innermost).
  std::map<int64_t, std::string> frame_sources;
};

// Reads the HloModule line and the stack frame tables. Never throws: what it cannot read is
// left out.
HloModuleHeader read_hlo_module_header(std::string_view text);

// A tuple index as written, "{1,0}" -> {1, 0}; "" or "{}" -> {}.
std::vector<int64_t> parse_shape_index(std::string_view index);

// The op_name and "file:line" of an instruction's metadata ("" when it has none).
struct SourceOfInstruction {
  std::string op_name;
  std::string source;
};
SourceOfInstruction instruction_source(const HloInstruction& instruction,
                                       const HloModuleHeader& header);

// A fusion's output_to_operand_aliasing={{}: (0, {})}: output index -> (operand, its index).
std::vector<OutputAlias> operand_aliasing(const HloInstruction& instruction);

}  // namespace tessera::inputs
