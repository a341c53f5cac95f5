#include "relayout/plan_classes.h"

#include <algorithm>
#include <cstdlib>

#include "relayout/transpose_box.h"

namespace tessera::relayout {
namespace {

// The lowest and highest destination elements the box writes.
int64_t destination_extent(const StridedBox& box) {
  int64_t low = 0;
  int64_t high = 0;
  for (const StridedAxis& a : box.axes) {
    const int64_t reach = (a.count - 1) * a.destination_stride;
    low += std::min<int64_t>(0, reach);
    high += std::max<int64_t>(0, reach);
  }
  return high - low + 1;
}

// A plain matrix read across into tiles (transpose_box.cpp's `across`: Fortran order into
// T(8,128)).
bool reads_across(const StridedBox& box) {
  const StridedAxis& a = box.axes[0];
  return box.axes.size() >= 6 && a.count == 16 && box.axes[4].source_stride == 16 &&
         box.axes[5].source_stride == 16 * a.source_stride && box.axes[5].destination_stride == 16;
}

}  // namespace

KernelClass kernel_class(const StridedBox& box, const CopyKernel& k) {
  switch (k.kind) {
    case KernelKind::kRuns: {
      if (destination_extent(box) >= 2 * box.elements()) return KernelClass::kRunsSpread;
      StridedBox trial = box;
      return order_runs_walk(trial, Walk::kSource) ? KernelClass::kRunsTile : KernelClass::kRuns;
    }
    case KernelKind::kTranspose:
      if (k.grouped)
        return reads_across(box) ? KernelClass::kTileGather : KernelClass::kTileTranspose;
      if (uses_interleave(box, k)) return KernelClass::kInterleave;
      if (uses_deinterleave(box, k)) return KernelClass::kDeinterleave;
      return k.source_bits == 32 ? KernelClass::kTranspose : KernelClass::kNone;
    case KernelKind::kPackBits:
      return KernelClass::kPackBits;
    case KernelKind::kStrided:
    case KernelKind::kBits:
      break;
  }
  return KernelClass::kNone;
}

std::string pitch_class(const StridedBox& box, const CopyKernel& k) {
  const int64_t bytes = std::max(1, k.source_bits / 8);
  if (box.axes.size() > 1 && kernel_class(box, k) == KernelClass::kTranspose &&
      std::abs(box.axes[0].source_stride) * bytes >= kWideRowBytes) {
    return "wide";
  }
  int64_t pitches[2] = {0, 0};
  if (box.axes.size() > 1) {
    if (k.kind == KernelKind::kRuns) {
      pitches[0] = box.axes[1].source_stride;
      pitches[1] = box.axes[1].destination_stride;
    } else {
      pitches[0] = box.axes[0].source_stride;
      pitches[1] = box.axes[1].destination_stride;
    }
  }
  bool page = true;
  bool line = true;
  for (const int64_t p : pitches) {
    const int64_t b = std::abs(p) * bytes;
    page = page && b % 4096 == 0;
    line = line && b % 64 == 0;
  }
  return page ? "page" : line ? "line" : "odd";
}

}  // namespace tessera::relayout
