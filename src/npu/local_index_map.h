// Compiles a validated LocalTensor's placement into an IndexMap (internal to the library).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <utility>

#include "tessera/index_map.h"
#include "tessera/npu/local_tensor.h"

namespace tessera::npu::detail {

// The numbers the spec's placement formula needs, copied out of a tensor.
struct PlacementFormula {
  int64_t npus, local_memory_bytes, start_npu, start_offset, element_bytes, packing;
  Strides strides;

  explicit PlacementFormula(const LocalTensor& tensor);
  // The element offset (in the whole local memory image) of (n, c, h, w): NPU (Q+c) mod X, then
  // R + (n' NS + row CS + h HS + w WS) stored elements, then the packed slot n mod packing.
  int64_t element_offset(const std::array<int64_t, 4>& index) const;
  // The element's NPU and its byte inside that NPU (which may pass S when the tensor does not fit).
  std::pair<int64_t, int64_t> npu_and_byte(const std::array<int64_t, 4>& index) const;
};

// Row-major linear index -> (n, c, h, w).
std::array<int64_t, 4> unflatten(int64_t linear, const TensorShape& shape);

// True when the within-NPU strides nest (each larger than the span of all smaller ones over
// their extents): then no two elements can overlap and the layout has a digit form.
bool strides_nest(const LocalTensor& tensor);

// Throws Error(kInvalid) naming two elements that share a byte, or Error(kUnsupported) when the
// tensor is too large to check element by element. Only called when the strides do not nest.
void check_no_overlap(const LocalTensor& tensor);

// The IndexMap of a tensor that fits: the digit form when the strides nest, otherwise a
// function with an inverse table (strides that interleave without overlapping).
std::shared_ptr<const IndexMap> compile_index_map(const LocalTensor& tensor);

}  // namespace tessera::npu::detail
