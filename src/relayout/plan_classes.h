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
// "line" when of 64 bytes, "odd" otherwise.
std::string pitch_class(const StridedBox& box, const CopyKernel& kernel);

}  // namespace tessera::relayout
