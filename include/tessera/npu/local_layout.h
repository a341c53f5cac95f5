// How a 4D tensor (N, C, H, W) is laid out in local memory (spec: "Scatter Features to Different
// NPUs", "Strides in Local Memory", "Layouts").
//
// Channel c of a tensor starting at NPU Q lives on NPU (Q + c) mod X, in channel row (Q + c) / X;
// every NPU reserves ceil((Q + C) / X) channel rows per batch. Local strides count elements:
// N stride (n -> n+1), C stride (c -> c+X: one channel row), H stride, W stride. A stride whose
// axis has one value (H = 1, one channel row, ...) "makes no sense" and is ignored; the spec's
// second stride figure disagrees with its text, and tessera follows the text.
#pragma once

#include <array>
#include <cstdint>

namespace tessera::npu {

// (N, C, H, W), or (I, O, H, W) for convolution weights.
using TensorShape = std::array<int64_t, 4>;
// (N stride, C stride, H stride, W stride) in elements of the stored type.
using Strides = std::array<int64_t, 4>;

enum class LayoutKind {
  kAligned,  // C stride rounded up to the device alignment; address aligned too
  kCompact,  // C stride H*W; address 4-byte aligned
  kStrides,  // explicit strides
};

// How the aligned and compact layouts derive the N stride. The spec multiplies the C stride by
// the channels per NPU ceil((Q + C) / X); some of the chips' GDMA copies use ceil(C / X),
// ignoring the start NPU (chip.h says which; docs/design/npu-local-memory.md). They agree when
// Q = 0.
enum class NStrideRule {
  kChannelsPerNpu,    // N stride = C stride * ceil((Q + C) / X)   (the spec)
  kIgnoringStartNpu,  // N stride = C stride * ceil(C / X)
};

struct LocalLayout {
  LayoutKind kind = LayoutKind::kAligned;
  Strides strides{};  // only for kStrides
  NStrideRule n_stride_rule = NStrideRule::kChannelsPerNpu;
  // Layout "gdma": aligned, with the N stride of the device's own default copy
  // (Device::default_copy_rule, set on the tensor by LocalTensor).
  bool gdma = false;
  bool operator==(const LocalLayout&) const = default;
};

// ceil((start_npu + channels) / npus). Spec examples with X=4: C=3 at NPU 0 or 1 -> 1,
// C=6 at NPU 0 -> 2, C=6 at NPU 3 -> 3.
int64_t channels_per_npu(int64_t start_npu, int64_t channels, int64_t npus);

// The aligned layout's C stride in stored elements: H*W*element_bytes rounded up to a multiple of
// the alignment (and of the element size), divided by element_bytes. Example: 128-byte alignment,
// f32, H*W = 20 -> 32; the same with s8 -> 128 ("ceil(H * W / 32) * 32 if 32-bit, ...").
int64_t aligned_c_stride(int64_t hw, int64_t element_bytes, int64_t alignment_bytes);

// Continuous layout (system memory, spec "Continuous Layout"): (C*H*W, H*W, W, 1).
Strides continuous_strides(const TensorShape& shape);

}  // namespace tessera::npu
