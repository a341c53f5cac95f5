// What a relayout costs on this host: the bytes it reads and writes, and its time,
// measured by running the plan or estimated from this host's copy speed.
//
//   const RelayoutPlan p = plan(row_major, tiled, {});
//   estimate_cost(p)  // bytes 2 x 64 MiB, seconds from a 32 MiB memcpy timed once per process
//   measure_cost(p)   // runs p on scratch buffers: the median of 3 runs after a warm-up
#pragma once

#include <cstdint>
#include <string>

#include "tessera/relayout/relayout_plan.h"

namespace tessera::relayout {

struct RelayoutCost {
  int64_t bytes_read = 0;     // the source layout's bytes
  int64_t bytes_written = 0;  // the destination layout's bytes, padding included
  double seconds = 0;
  // This host's copy speed (bytes copied per second by memcpy), what the estimate stands on and
  // what a measurement is compared with.
  double copy_bytes_per_second = 0;
  bool measured = false;  // false: an estimate
  std::string basis;      // how `seconds` was obtained, in words
};

// Bytes copied per second by memcpy on this host: a 32 MiB copy timed (best of 3) on first use,
// then remembered for the process.
double host_copy_bytes_per_second();

// The plan's bytes, and seconds as if its kernels ran at this host's copy speed: an estimate
// (the engine's kernels ran at 0.3-1.2 of a copy in the measurements of docs/performance.md).
RelayoutCost estimate_cost(const RelayoutPlan& plan);

// Runs the plan on scratch buffers (once to fault the pages in, then `repetitions` times) and
// reports the median time. Throws Error(kArgument) when the two buffers would take more than
// kMaxMeasuredBytes together: a measurement must not exhaust the host's memory.
RelayoutCost measure_cost(const RelayoutPlan& plan, int repetitions = 3);
inline constexpr int64_t kMaxMeasuredBytes = int64_t{2} << 30;

}  // namespace tessera::relayout
