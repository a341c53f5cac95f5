// The buffers of a module's values, on its schedule: which values share one buffer (the
// compiler's aliasing) and where in the schedule each buffer is written and last read.
//
// The schedule is the entry computation's instructions in order with the computations of while,
// call and conditional run in place (a while's condition and body once, in that order); what a
// fusion, reduce or async computation runs is inside that one instruction. A buffer read inside a
// loop that it was written before lives until the loop ends (the loop reads it again).
// The aliasing rules, each with the compile that shows it: docs/design/program-memory.md.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "hlo_module_header.h"
#include "tessera/inputs/hlo_instructions.h"
#include "tessera/inputs/program_memory.h"
#include "tessera/tpu/target.h"

namespace tessera::inputs {

struct ScheduledBuffers {
  std::vector<ProgramBuffer> buffers;       // in the order they are defined
  std::vector<std::string> schedule;        // the instruction at each position
  int64_t output_tuple_elements = 0;        // the entry result's top-level elements (0: array)
  int64_t argument_bytes_by_space[8] = {};  // entry parameters' bytes, S(0)..S(7)
  int64_t output_bytes_by_space[8] = {};    // the entry result's buffers, each once
  int64_t alias_bytes = 0;                  // parameters in input_output_alias (HBM)
  std::vector<std::string> notes;
};

// Bounded: one pass over the instructions; a computation is run in place at most once per call
// site and never inside itself.
ScheduledBuffers schedule_buffers(const HloModuleText& module, const HloModuleHeader& header,
                                  const tpu::TpuTarget& target);

}  // namespace tessera::inputs
