// How much local memory a tensor takes, NPU by NPU, and how much of it is not data.
//
// Definitions (all in bytes, strides assumed non-negative as LocalTensor enforces):
// - an NPU's span: from the first byte of its first element to the last byte of its last element,
//   gaps included (0 when the NPU holds no channel);
// - busiest NPU bytes: the largest span, "the local memory per NPU" the best-W search minimises;
// - reserved per NPU: from the tensor's start offset R to the last byte of the busiest NPU. The
//   spec advises against reusing a tensor's empty blocks, so this band is taken in every NPU;
// - data: the real elements; dummies: the padding elements of 4N/2N/2IC packing;
// - wasted = X * reserved - data: alignment gaps inside spans, empty NPUs and empty channel slots
//   of used channel rows, and dummies. wasted = dummy + gap + unused, where gap = sum of spans -
//   data - dummy and unused = X * reserved - sum of spans.
//
// Example (spec "Matrix Layout", X=4, S=1024, f32 2x40 matrix with W=10 at NPU 0 = aligned tensor
// (2,4,1,10)): every NPU spans (1*32 + 10) * 4 = 168 bytes, data 80 bytes per NPU, reserved 168,
// wasted 4*168 - 320 = 352.
#pragma once

#include <cstdint>
#include <vector>

#include "tessera/npu/local_tensor.h"

namespace tessera::npu {

struct NpuFootprint {
  int64_t npu = 0;
  int64_t channels = 0;    // channels of the tensor on this NPU
  int64_t first_byte = 0;  // offsets inside the NPU; meaningful when channels > 0
  int64_t last_byte = 0;   // inclusive
  int64_t span_bytes = 0;  // last_byte - first_byte + 1, or 0
  int64_t data_bytes = 0;
  int64_t dummy_bytes = 0;
};

struct Footprint {
  std::vector<NpuFootprint> npus;     // one per NPU of the device, in NPU order
  std::vector<int64_t> npus_touched;  // NPUs holding at least one channel, ascending
  int64_t reserved_bytes_per_npu = 0;
  int64_t busiest_npu_bytes = 0;  // the largest span: local memory the busiest NPU gives it
  int64_t span_bytes = 0;         // sum of the NPUs' spans
  int64_t data_bytes = 0;
  int64_t dummy_bytes = 0;
  int64_t gap_bytes = 0;
  int64_t unused_bytes = 0;
  int64_t wasted_bytes = 0;
  bool fits = true;
  int64_t overrun_bytes = 0;  // bytes past the end of an NPU's local memory when !fits
};

// The footprint of `tensor`, computed per NPU from its channels and strides in O(X).
Footprint footprint(const LocalTensor& tensor);

// footprint(tensor).busiest_npu_bytes in O(1): the span of the NPU holding channel 0, which
// holds the most channels (ceil(C/X)). For searches over many layouts, where O(X) per candidate
// made the best-W search of a 2^32-column matrix on 65536 NPUs take minutes.
// Example (the one above): 168.
int64_t busiest_npu_span_bytes(const LocalTensor& tensor);

}  // namespace tessera::npu
