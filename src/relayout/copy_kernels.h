// The kernels that move one strided box, and the plan-time choice between them
// (docs/design/relayout-engine.md: "pick a kernel: memcpy runs, SIMD register transposes,
// interleave kernels, bit kernels").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "relayout/kernel_variant.h"
#include "relayout/strided_box.h"

namespace tessera::relayout {

enum class KernelKind {
  kRuns,       // innermost axis contiguous on both sides: wide copies of whole runs
  kTranspose,  // innermost axis contiguous in the destination, axes[1] in the source: 2-d tiles
  kStrided,    // whole-byte elements, no contiguous pair: element loop
  kPackBits,   // 8-bit source, 1-bit destination, 32 bits per word from 32 source rows
  kBits,       // sub-byte or width-changing elements: bit-exact element loop
};

struct CopyKernel {
  KernelKind kind = KernelKind::kBits;
  int source_bits = 8;
  int destination_bits = 8;
  bool streaming = false;  // write with non-temporal stores (large outputs)
  bool sign_extend = false;
  bool grouped = false;  // kTranspose of small 4-byte tiles gathered into 16x16 (axes 0-3)
  KernelClass kernel_class = KernelClass::kNone;  // what `variant` means for it (plan_classes.h)
  KernelVariant variant;                          // resolved (kernel_variant.h)
};

// Picks the kernel for a simplified box; may reorder its axes (the source-contiguous axis of a
// transpose moves to axes[1]; runs are walked in the source's order). `streaming` asks for
// non-temporal stores where a kernel has them. The kernel's variant is the default one: the
// planner sets it (relayout_plan.cpp).
CopyKernel choose_copy_kernel(StridedBox& box, int source_bits, int destination_bits,
                              bool sign_extend, bool streaming);

// Orders the outer axes of a box of runs for `walk` (kernel_variant.h). Returns whether the other
// walk would order them differently (runs whose walk is a choice: KernelClass::kRunsTile).
bool order_runs_walk(StridedBox& box, Walk walk);

// A 4-byte transpose of tiles smaller than 16x16 whose neighbouring tiles cannot all be paired
// into 16x16 ones, because the axis that pairs them has a count that is not a multiple of the
// pairing (T(8,128) <-> Fortran order with 8 rows over a multiple of 16: 1025 tile rows): cuts the
// last tiles of that axis off into a box of their own, so that choose_copy_kernel groups the
// rest. Returns the cut-off box, or nothing when no such cut lets the rest group.
std::optional<StridedBox> split_off_unpaired_tiles(StridedBox& box, int source_bits,
                                                   int destination_bits, bool streaming);

void copy_box(const StridedBox& box, const CopyKernel& kernel, const std::byte* source,
              std::byte* destination);

// Writes `fill_bits` into every destination element of the box.
void fill_box(const StridedBox& box, int bits, uint64_t fill_bits, std::byte* destination);

// "transpose 3 axes [16x16x64] 32->32 bits streaming, simd AVX2 (Highway)", for
// RelayoutPlan::describe.
std::string describe_box(const StridedBox& box, const CopyKernel& kernel);

// The instruction set the kernel runs with on this CPU: "AVX3 (Highway)" (AVX-512), "AVX2
// (Highway)", "NEON (Highway)", "none (memcpy)" or "none (scalar)" (every SIMD kernel is
// Highway's since the hand-written AVX2 ones were replaced: portable_interleave.cpp).
std::string simd_target(const StridedBox& box, const CopyKernel& kernel);

}  // namespace tessera::relayout
