// Setting tessera's places beside a chip's own C model (python/tessera/cmodel.py, the tpu-mlir
// wheel's libraries): the request that asks the model to copy the same tensor or matrix into local
// memory, and the comparison of every element's place. The CLI's --check-with-cmodel and the
// Python package share these, so both ask and judge alike.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "tessera/npu/local_tensor.h"
#include "tessera/npu/matrix_layout.h"

namespace tessera::npu {

// The C model copies at most this many elements per check (its global memory is bounded).
inline constexpr int64_t kMaxCModelElements = int64_t{1} << 20;

// {"op": "copy", "bits", "shape", "address", "dst_stride"?}: the GDMA copy that lays the tensor
// out (no stride for the layout "gdma", the tensor's strides otherwise). Throws Error(kInvalid)
// for a device that is not a chip preset, a packed storage mode or an element that is not 8, 16
// or 32 bits wide, Error(kUnsupported) above kMaxCModelElements elements.
nlohmann::json cmodel_request(const LocalTensor& tensor);
// {"op": "matrix", "bits", "rows", "cols", "cols_per_channel", "row_stride", "address"}.
nlohmann::json cmodel_request(const MatrixLayout& matrix);

struct CModelComparison {
  int64_t elements = 0;
  int64_t disagreeing = 0;
  std::string
      first_disagreement;  // "element (n,c,h,w): tessera NPU a byte b, C model NPU c byte d"
  bool agrees() const { return disagreeing == 0; }
};

// `places` is the model's answer: (NPU, offset) pairs in row-major element order, -1 for an
// element it did not place. Throws Error(kInvalid) when the count does not match.
CModelComparison compare_with_cmodel(const LocalTensor& tensor, std::span<const int64_t> places);
CModelComparison compare_with_cmodel(const MatrixLayout& matrix, std::span<const int64_t> places);

}  // namespace tessera::npu
