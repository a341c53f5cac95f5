// The 16 rows of a 16x16 tile of 4-byte elements, for the Highway transpose kernel
// (portable_transpose.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

namespace tessera::relayout {

// Row k (< 16) of a 16x16 tile of 4-byte elements: base + (k % 8) * stride + (k / 8) * group,
// in bytes. Two groups of 8 rows with one stride cover both a plain matrix (group = 8 * stride)
// and two vertically adjacent tiles such as T(8,128)'s. `Byte` is const for the source side.
template <class Byte>
struct StridedRows {
  Byte* base;
  int64_t stride;
  int64_t group;
  Byte* operator()(int k) const { return base + (k & 7) * stride + (k >> 3) * group; }
  bool aligned(uintptr_t alignment = 32) const {
    return ((reinterpret_cast<uintptr_t>(base) | static_cast<uintptr_t>(stride) |
             static_cast<uintptr_t>(group)) &
            (alignment - 1)) == 0;
  }
};

template <class Byte>
struct ListedRows {
  Byte* const* rows;
  Byte* operator()(int k) const { return rows[k]; }
  bool aligned(uintptr_t alignment = 32) const {
    uintptr_t bits = 0;
    for (int k = 0; k < 16; ++k) bits |= reinterpret_cast<uintptr_t>(rows[k]);
    return (bits & (alignment - 1)) == 0;
  }
};

// Row k at base + offsets[k], in bytes. `Byte` is const for the source side.
template <class Byte>
struct OffsetRows {
  Byte* base;
  const int64_t* offsets;
  Byte* operator()(int k) const { return base + offsets[k]; }
  bool aligned(uintptr_t alignment = 32) const {
    uintptr_t bits = reinterpret_cast<uintptr_t>(base);
    for (int k = 0; k < 16; ++k) bits |= static_cast<uintptr_t>(offsets[k]);
    return (bits & (alignment - 1)) == 0;
  }
};

}  // namespace tessera::relayout
