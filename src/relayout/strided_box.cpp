#include "relayout/strided_box.h"

#include <algorithm>

namespace tessera::relayout {

int64_t StridedBox::elements() const {
  int64_t n = 1;
  for (const StridedAxis& axis : axes) n *= axis.count;
  return n;
}

void simplify(StridedBox& box) {
  std::erase_if(box.axes, [](const StridedAxis& a) { return a.count == 1; });
  // An axis that walks backwards in the destination (a reversed NumPy view written by
  // from_physical) is walked forwards from its other end: the same element pairs, and the
  // destination-contiguous kernels (runs, transposes) apply again.
  for (StridedAxis& a : box.axes) {
    if (a.destination_stride >= 0) continue;
    box.source_base += (a.count - 1) * a.source_stride;
    box.destination_base += (a.count - 1) * a.destination_stride;
    a.source_stride = -a.source_stride;
    a.destination_stride = -a.destination_stride;
  }
  std::stable_sort(box.axes.begin(), box.axes.end(),
                   [](const StridedAxis& a, const StridedAxis& b) {
                     return a.destination_stride < b.destination_stride;
                   });
  std::vector<StridedAxis> fused;
  for (const StridedAxis& axis : box.axes) {
    if (!fused.empty()) {
      StridedAxis& inner = fused.back();
      if (axis.destination_stride == inner.count * inner.destination_stride &&
          axis.source_stride == inner.count * inner.source_stride) {
        inner.count *= axis.count;
        continue;
      }
    }
    fused.push_back(axis);
  }
  box.axes = std::move(fused);
}

}  // namespace tessera::relayout
