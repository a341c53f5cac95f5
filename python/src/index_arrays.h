// Vectorised index <-> offset maps over NumPy arrays: C++ loops with the GIL released, so people
// can build their own tools without Python loops.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstddef>
#include <optional>
#include <vector>

#include "numpy_arrays.h"
#include "tessera/index_map.h"

namespace tessera::python {

using Int64Array = nanobind::ndarray<const int64_t, nanobind::c_contig, nanobind::device::cpu>;

// Any integer array-like (ndarray of any integer dtype and order, nested lists) as a contiguous
// int64 array; copies only when it is not one already. Raises tessera.Error for non-integers.
Int64Array as_int64_array(nanobind::handle object, const char* what);

// The shape [...] and row count of an index array [..., rank]; raises tessera.Error when the
// last axis is not `rank` long.
struct LeadingShape {
  std::vector<std::size_t> shape;
  std::size_t rows;
};
LeadingShape leading_shape(const Int64Array& indices, std::size_t rank);

// indices: int array [..., rank] -> offsets [...]. Raises OutOfRangeError for an index outside
// the dims. Example: Layout.parse("f32[3,5]{1,0:T(2,2)}").linear_indices([[2,3],[0,0]]) == [17,0].
NumpyArray<int64_t> linear_indices(const IndexMap& map, nanobind::handle indices);
// offsets: int array [...] -> indices [..., rank], rows of -1 for padding offsets.
// Example: for f32[3,5]{1,0:T(2,2)}, logical_indices([17, 23]) == [[2,3],[-1,-1]].
NumpyArray<int64_t> logical_indices(const IndexMap& map, nanobind::handle offsets);
// The logical index at `offset` as a tuple, or None for padding.
std::optional<nanobind::tuple> unindex(const IndexMap& map, int64_t offset);

inline constexpr const char* kLinearIndicesSignature =
    "def linear_indices(self, indices: numpy.typing.ArrayLike) -> "
    "numpy.typing.NDArray[numpy.int64]";
inline constexpr const char* kLogicalIndicesSignature =
    "def logical_indices(self, offsets: numpy.typing.ArrayLike) -> "
    "numpy.typing.NDArray[numpy.int64]";
inline constexpr const char* kLinearIndicesDoc =
    "Element offsets of many logical indices at once.\n\n"
    "indices: integer array of shape [..., rank]; returns int64 array of shape [...].\n"
    "Example: Layout.parse('f32[3,5]{1,0:T(2,2)}').linear_indices([[2,3],[0,0]]) -> [17, 0].\n"
    "Raises OutOfRangeError when a component is outside its dimension.";
inline constexpr const char* kLogicalIndicesDoc =
    "Logical indices stored at many element offsets at once (the inverse of linear_indices).\n\n"
    "offsets: integer array of any shape [...]; returns int64 array of shape [..., rank] whose\n"
    "rows are -1 where the offset is padding (mask = result[..., 0] >= 0 for rank >= 1).\n"
    "Example: for 'f32[3,5]{1,0:T(2,2)}', logical_indices([17, 23]) -> [[2,3], [-1,-1]].\n"
    "Raises OutOfRangeError when an offset is outside [0, size_elements).";

}  // namespace tessera::python
