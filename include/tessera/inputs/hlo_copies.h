// The copies in an HLO module (`tessera explain FILE --copies`): every instruction
// whose operand and result lay the data out differently, with the bytes it moves, largest
// first, and the change in the program that removes it when one is known.
//
//   %x.1 = f32[1024,384]{1,0:T(8,128)} parameter(0)
//   %copy = f32[1024,384]{0,1:T(8,128)S(1)} copy(%x.1)
//   -> {name "copy", from "f32[1024,384]{1,0:T(8,128)}", to "f32[1024,384]{0,1:T(8,128)S(1)}",
//       bytes 1572864, kind "relayout", fix "pre-transpose parameter 0 ..."}
//
// What counts (compiled modules, after layout assignment):
// - copy: operand and result layouts differ (a transpose, other tiles, another memory space);
//   libtpu's copies may also convert the element type (f32 -> bf16 before a dot), said in changes;
// - copy-start: its destination (result element {0}) differs from the operand, usually only in
//   memory space: XLA prefetching into on-chip memory (kind "memory_space");
// - transpose: unless it leaves every element where it was (then it is a bitcast);
// - reshape: unless it leaves every element where it was;
// each also inside fused computations, named with the fusion that runs it. bitcast never moves
// a byte (it reinterprets a buffer), and copy-done only waits for its copy-start.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::inputs {

struct HloCopy {
  std::string name;         // the instruction
  std::string opcode;       // copy, copy-start, transpose, reshape
  std::string computation;  // where it is
  std::string fusion;       // the fusion instruction that runs that computation ("" if none)
  std::string operand;      // the operand instruction's name
  std::string from;         // the operand's shape with layout
  std::string to;           // the result's shape with layout
  int64_t bytes = 0;        // the result's bytes: what the instruction writes
  int64_t read_bytes = 0;   // the operand's bytes
  // "relayout" (elements change places), "memory_space" (the same arrangement in another memory
  // space), "reshape" (a reshape whose elements change places).
  std::string kind;
  int64_t elements = 0;
  int64_t moved_elements = -1;       // elements whose position changes; -1 when not counted
  std::vector<std::string> changes;  // "order {1,0} -> {0,1}", "tiles ... -> ...", "S(0) -> S(1)"
  std::string fix;                   // the program change that removes it; "" when none known
  int64_t line = 0;
};

struct HloCopies {
  std::vector<HloCopy> copies;  // largest first (bytes, then name)
  int64_t bytes = 0;            // all of them
  int64_t relayout_bytes = 0;   // those that are not memory-space copies
  int64_t instructions = 0;     // instructions read
  std::vector<std::string> warnings;
};

// Reads the module and finds its copies. Never throws for malformed text (unreadable parts
// become warnings); bounded by parse_hlo_module's limits.
HloCopies find_copies(std::string_view module_text);

// {copies: [{name, from, to, bytes, kind, opcode, computation, fusion, operand, read_bytes,
// elements, moved_elements, changes, fix, line}], bytes, relayout_bytes, instructions, warnings}
nlohmann::ordered_json copies_json(const HloCopies& copies);

// The ranked list for people; at most `limit` copies (0: all).
std::string copies_text(const HloCopies& copies, std::size_t limit);

}  // namespace tessera::inputs
