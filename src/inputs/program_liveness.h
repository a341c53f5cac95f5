// The peak of temporaries on a schedule: each buffer alive from the position that writes it to
// its last reader, inclusive; the peak is the first position where the most bytes are alive.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "tessera/inputs/program_memory.h"

namespace tessera::inputs {

struct TemporaryPeak {
  int64_t bytes = 0;
  int64_t position = -1;  // -1: no temporary in this memory space
};

// Per memory space, the peak of the temporaries (not parameters, outputs or constants) alive at
// once over `length` positions; `hbm_temporaries`, when given, gets HBM's bytes at every position.
std::map<int64_t, TemporaryPeak> temporary_peaks(const std::vector<ProgramBuffer>& buffers,
                                                 int64_t length,
                                                 std::vector<int64_t>* hbm_temporaries);

// Marks the HBM temporaries the compiler keeps inside an output's allocation: each, in the
// order they are written, goes into the first of the largest outputs that is at least its size,
// is written only after the temporary's last use, and holds no other temporary at the time
// (tests/fixtures/tpu_memory: the MLP step's loss scalar and the scan's loop counter share the
// outputs' allocations in the buffer assignment, and memory_analysis counts no temporary).
void place_temporaries_in_outputs(std::vector<ProgramBuffer>& buffers);

// True for a buffer counted among the temporaries.
bool is_temporary(const ProgramBuffer& buffer);

// The HBM buffers alive at `position` (arguments and outputs always: memory_analysis holds them
// for the whole run), largest first.
std::vector<ProgramBuffer> hbm_buffers_alive_at(const std::vector<ProgramBuffer>& buffers,
                                                int64_t position);

}  // namespace tessera::inputs
