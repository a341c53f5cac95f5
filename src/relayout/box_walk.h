// Walking a strided box's outer axes, and the unsigned word of an element size: shared by the
// copy kernels (copy_kernels.cpp) and the transposes (transpose_box.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "relayout/strided_box.h"

namespace tessera::relayout {

// Calls f(source_offset, destination_offset) for every combination of axes[first..], in
// elements, innermost axis fastest.
template <class F>
void for_each_outer(const StridedBox& box, std::size_t first, F&& f) {
  const std::size_t n = box.axes.size();
  if (first >= n) {
    f(box.source_base, box.destination_base);
    return;
  }
  std::vector<int64_t> counter(n, 0);
  int64_t s = box.source_base;
  int64_t d = box.destination_base;
  while (true) {
    f(s, d);
    std::size_t k = first;
    for (; k < n; ++k) {
      const StridedAxis& a = box.axes[k];
      s += a.source_stride;
      d += a.destination_stride;
      if (++counter[k] < a.count) break;
      s -= a.count * a.source_stride;
      d -= a.count * a.destination_stride;
      counter[k] = 0;
    }
    if (k == n) return;
  }
}

// The unsigned integer of an element of kBytes (1, 2, 4 or 8) bytes.
template <int kBytes>
using Word = std::conditional_t<
    kBytes == 1, uint8_t,
    std::conditional_t<kBytes == 2, uint16_t, std::conditional_t<kBytes == 4, uint32_t, uint64_t>>>;

}  // namespace tessera::relayout
