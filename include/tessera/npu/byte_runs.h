// The bytes a tensor really stores in each NPU, as sorted runs [begin, end) of byte offsets
// (docs/design/npu-local-memory.md, "Strides in local memory"): what plans compare to find
// overlaps, reused empty blocks and banks without one array entry per byte of local memory.
//
// Stored bytes are every byte of every stored element, so the dummies of 4N/2N/2IC packing count
// (the hardware writes whole packed words). Work is bounded by the number of runs, not bytes: the
// innermost axes whose elements are back to back fold into one run (the aligned layout's H*W).
//
// Example (X=4, S=1024, align 128, f32 (2,5,3,4) aligned at address 0: C stride 32 elements,
// 2 channel rows, N stride 64): NPU 0 holds channels 0 and 4 -> runs [0,48) [128,176) [256,304)
// [384,432); NPU 1 holds channel 1 only -> [0,48) [256,304).
#pragma once

#include <cstdint>
#include <vector>

#include "tessera/npu/local_tensor.h"

namespace tessera::npu {

struct ByteRun {
  int64_t begin = 0;  // first byte offset inside the NPU
  int64_t end = 0;    // one past the last
  int64_t size() const { return end - begin; }
  bool operator==(const ByteRun&) const = default;
};

// Sorted, disjoint, non-adjacent runs (adjacent ones are merged).
using ByteRuns = std::vector<ByteRun>;

// Most runs one tensor may produce over all NPUs before tessera refuses (Error(kUnsupported)):
// keeps a typo such as N = 10^9 from allocating gigabytes.
inline constexpr int64_t kMaxByteRuns = int64_t{1} << 22;

// One ByteRuns per NPU of the device, in NPU order; offsets may pass S when !tensor.fits().
std::vector<ByteRuns> stored_byte_runs(const LocalTensor& tensor);

// Sorts and merges overlapping or adjacent runs.
ByteRuns normalize_runs(ByteRuns runs);
// The runs present in both (inputs normalized).
ByteRuns intersect_runs(const ByteRuns& a, const ByteRuns& b);
// a ∪ b (inputs normalized).
ByteRuns unite_runs(const ByteRuns& a, const ByteRuns& b);
// [begin, end) minus the runs (normalized): the free runs.
ByteRuns complement_runs(const ByteRuns& runs, int64_t begin, int64_t end);
int64_t total_bytes(const ByteRuns& runs);
// Banks (offset / bank_bytes) any run touches, ascending.
std::vector<int64_t> banks_of(const ByteRuns& runs, int64_t bank_bytes);

}  // namespace tessera::npu
