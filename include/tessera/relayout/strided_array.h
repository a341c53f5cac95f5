// An array in memory as NumPy, DLPack and PyTorch describe it: dims and one byte stride per
// dimension, so element (e_0, ..., e_{r-1}) lies at
//
//   element_0 + e_0 * byte_strides[0] + ... + e_{r-1} * byte_strides[r-1]   (bytes)
//
// Any such array is a strided logical layout the relayout engine can read or write directly
// (relayout::plan overloads in relayout_plan.h), without first copying it into row-major order:
//
//   f32[3,5] in Fortran order        dims {3,5} strides {4,12}    element (2,3) at byte 44
//   x[:, ::-1] of a C-order f32[3,5] dims {3,5} strides {20,-4}   element (0,0) at byte 16
//   x[::2] of a C-order f32[6,5]     dims {3,5} strides {40,4}    bytes 20..39 belong to no element
//   np.broadcast_to(row, (3,5))      dims {3,5} strides {0,4}     every row is the same 20 bytes
//
// The bytes an array touches are its footprint; buffers handed to the engine for a strided side
// start at the footprint's lowest byte, `first_element` bytes before element 0 (16 for the
// reversed example above, whose footprint is 60 bytes).
#pragma once

#include <cstdint>
#include <vector>

namespace tessera::relayout {

struct StridedArray {
  std::vector<int64_t> dims;
  int element_bits = 8;               // the storage of one element: whole bytes
  std::vector<int64_t> byte_strides;  // may be negative, zero, or leave gaps
};

// How the engine uses the array: a source is only read, so its elements may share bytes
// (broadcast views); a destination must give every element its own bytes.
enum class StridedUse { kSource, kDestination };

struct StridedFootprint {
  int64_t first_element = 0;  // bytes from the lowest byte touched to element 0
  int64_t size_bytes = 0;     // bytes from the lowest byte touched to one past the highest; 0 when
                              // the array has no elements
};

// Validates `array` for `use` and returns its footprint. Throws Error(kArgument) naming the
// dimension when the array cannot be described element by element: a rank that differs from
// the number of strides, elements that are not whole bytes, a stride that is not a multiple of
// the element size (the engine addresses whole elements), a footprint past 2^63 bytes; and for a
// destination, a zero stride (a broadcast view) or elements whose bytes overlap.
//   check_strided_array({{3,5}, 32, {20,-4}}, StridedUse::kSource) == {16, 60}
//   check_strided_array({{3,5}, 32, {0,4}}, StridedUse::kDestination)  // throws: stride 0
StridedFootprint check_strided_array(const StridedArray& array, StridedUse use);

}  // namespace tessera::relayout
