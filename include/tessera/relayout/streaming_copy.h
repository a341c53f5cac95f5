// A plain copy at this machine's ceiling: 64-byte non-temporal stores where the CPU has AVX-512,
// memcpy elsewhere (docs/performance.md, "Method": glibc's memcpy streams only above ~190 MiB). The
// relayout engine copies contiguous runs of large outputs with it; benchmarks use it as the
// baseline.
#pragma once

#include <cstddef>

namespace tessera::relayout {

// Copies `bytes` bytes; the ranges must not overlap. The stores are fenced before returning, so
// another thread may read the destination once it has synchronised with this one.
//   streaming_copy(destination, source, 64 << 20);  // like memcpy, faster for large outputs
void streaming_copy(std::byte* destination, const std::byte* source, std::size_t bytes);

}  // namespace tessera::relayout
