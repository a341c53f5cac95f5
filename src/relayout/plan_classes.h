// Which kernel class a box's kernel belongs to (kernel_variant.h), and the problem class its
// wisdom is looked up under (wisdom.h): what the planner needs to know of a box.
#pragma once

#include <string>

#include "relayout/copy_kernels.h"
#include "relayout/strided_box.h"

namespace tessera::relayout {

// The class of `kernel`, chosen by choose_copy_kernel for `box` (runs still in the source's
// order).
KernelClass kernel_class(const StridedBox& box, const CopyKernel& kernel);

// "page" when the rows the kernel steps between are a multiple of 4 KiB apart on both sides,
// "line" when of 64 bytes, "odd" otherwise; "wide" for a plain transpose whose source rows are
// kWideRowBytes or more apart. Why the last: the band of source rows a staged transpose reads at
// a time spans 128 times a row, and on 32 and 64 KiB rows the variant fastest on 16 KiB rows
// (128-row bands) ran 20-45% behind another one
// (docs/notes/2026-11-28-wide-transposes.md), so tune measures such rows apart.
std::string pitch_class(const StridedBox& box, const CopyKernel& kernel);

constexpr int64_t kWideRowBytes = int64_t{32} << 10;

}  // namespace tessera::relayout
