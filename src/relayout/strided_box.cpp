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
