// Which arrays of an HLO module are buffers of their own, so that totals count each buffer once
// (`explain m.hlo --all` added fusion parameters, tuple elements and the entry layout's
// entries to the buffers they name, 4 MiB for about 1 MiB of buffers).
//
// An array is not a buffer of its own when it is
//   - inside a computation that a fusion, reduce, sort, map, scatter, ... runs (`calls=`,
//     `to_apply=` of anything but `call`): a fusion's values live in registers and its result is
//     the buffer; a reducer works on scalars;
//   - a parameter of a while body or condition, a called computation or a conditional branch:
//     the buffer its caller passes;
//   - the result of tuple, get-tuple-element, bitcast, while, call, conditional,
//     optimization-barrier, or an asynchronous *-done: another instruction's buffer (a tuple
//     holds pointers to its elements; a while loop updates its state in place);
//   - copy-start's element {1}: the buffer it copies from;
//   - an entry of entry_computation_layout, when the ENTRY computation was read: the buffer of
//     the ENTRY's parameter or ROOT.
// InputArray::same_buffer then says which, in words.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tessera/inputs/hlo_instructions.h"
#include "tessera/inputs/input_arrays.h"

namespace tessera::inputs {

// What the module reader saw besides the arrays.
struct HloModuleFacts {
  std::string entry;  // the ENTRY computation's name ("" when none was read)
  // The computation each array of reading.arrays is in ("" for the entry layout's entries) and
  // the opcode of the instruction it comes from ("" for the entry layout's entries).
  std::vector<std::string> computation;
  std::vector<std::string> opcode;
  // computation -> (the opcode that calls it, the calling instruction's name).
  std::map<std::string, std::pair<std::string, std::string>> callers;
};

// The computations `instruction` calls (calls=, to_apply=, body=, ...), into `facts.callers`.
void record_callees(const HloInstruction& instruction, HloModuleFacts& facts);

// Sets InputArray::same_buffer of every array that is not a buffer of its own.
void mark_shared_buffers(InputReading& reading, const HloModuleFacts& facts);

}  // namespace tessera::inputs
