// Transposing kernels for one strided box (KernelKind::kTranspose): register tiles of 1-8 byte
// elements, the staged f32 transpose for large outputs, 128x128 blocks of small tiles gathered
// into 16x16 (XLA's T(8,128) transposed), and the Highway interleaves for (2,1)/(4,1) packing.
#pragma once

#include <cstddef>

#include "relayout/copy_kernels.h"
#include "relayout/strided_box.h"

namespace tessera::relayout {

void transpose_box(const StridedBox& box, const CopyKernel& kernel, const std::byte* source,
                   std::byte* destination);

// Whether transpose_box runs a box with the staged f32 transpose (for simd_target).
bool uses_staged_transpose(const CopyKernel& kernel);
// Whether transpose_box runs the box with the Highway interleave kernels (for simd_target).
bool uses_interleave(const StridedBox& box, const CopyKernel& kernel);
// Whether it runs the box with the Highway deinterleave kernels.
bool uses_deinterleave(const StridedBox& box, const CopyKernel& kernel);

}  // namespace tessera::relayout
