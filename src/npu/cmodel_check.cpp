#include "tessera/npu/cmodel_check.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <vector>

#include "local_index_map.h"
#include "tessera/checked_arithmetic.h"
#include "tessera/error.h"
#include "tessera/npu/chip.h"

namespace tessera::npu {
namespace {

void require_chip(const Device& device) {
  if (find_chip(device.name) == nullptr) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("--check-with-cmodel needs a chip preset ({}), not a custom device",
                            chip_names()));
  }
}

int64_t element_bits(int64_t bytes, std::string_view type) {
  if (bytes != 1 && bytes != 2 && bytes != 4) {
    throw Error(
        ErrorKind::kInvalid,
        fmt::format("--check-with-cmodel copies 8-, 16- and 32-bit elements, not {}", type));
  }
  return bytes * 8;
}

void require_bounded(int64_t elements) {
  if (elements > kMaxCModelElements) {
    throw Error(ErrorKind::kUnsupported,
                fmt::format("--check-with-cmodel copies at most {} elements; this has {}",
                            kMaxCModelElements, elements));
  }
}

// Compares `count` elements, the i-th placed by tessera at ours(i), index text index_text(i).
template <typename Ours, typename IndexText>
CModelComparison compare(int64_t count, std::span<const int64_t> places, Ours ours,
                         IndexText index_text) {
  if (static_cast<int64_t>(places.size()) != 2 * count) {
    throw Error(ErrorKind::kInvalid, fmt::format("the C model answered {} places for {} elements",
                                                 places.size() / 2, count));
  }
  CModelComparison result;
  result.elements = count;
  for (int64_t i = 0; i < count; ++i) {
    const ElementPlace place = ours(i);
    const int64_t npu = places[2 * i];
    const int64_t offset = places[2 * i + 1];
    if (place.npu == npu && place.byte_offset == offset) continue;
    if (result.disagreeing++ == 0) {
      result.first_disagreement = fmt::format(
          "element {}: tessera NPU {} byte {}, C model {}", index_text(i), place.npu,
          place.byte_offset,
          npu < 0 ? std::string("nowhere") : fmt::format("NPU {} byte {}", npu, offset));
    }
  }
  return result;
}

}  // namespace

nlohmann::json cmodel_request(const LocalTensor& tensor) {
  require_chip(tensor.device());
  if (tensor.storage_mode() != StorageMode::kNone) {
    throw Error(ErrorKind::kInvalid,
                "--check-with-cmodel copies plain tensors: the chips' C models have no GDMA copy "
                "into 4N, 2N or 2IC");
  }
  const auto& shape = tensor.shape();
  require_bounded(checked_multiply(checked_multiply(shape[0], shape[1], "N*C"),
                                   checked_multiply(shape[2], shape[3], "H*W"), "N*C*H*W"));
  nlohmann::json request = {
      {"op", "copy"},
      {"bits", element_bits(tensor.element_bytes(), element_type_name(tensor.element_type()))},
      {"shape", shape},
      {"address", tensor.address()}};
  if (!tensor.layout().gdma) request["dst_stride"] = tensor.strides();
  return request;
}

nlohmann::json cmodel_request(const MatrixLayout& matrix) {
  const LocalTensor& tensor = matrix.tensor();
  require_chip(tensor.device());
  require_bounded(checked_multiply(matrix.rows(), matrix.columns(), "rows*columns"));
  return {{"op", "matrix"},
          {"bits", element_bits(tensor.element_bytes(), element_type_name(tensor.element_type()))},
          {"rows", matrix.rows()},
          {"cols", matrix.columns()},
          {"cols_per_channel", matrix.width()},
          {"row_stride", matrix.columns()},
          {"address", tensor.address()}};
}

CModelComparison compare_with_cmodel(const LocalTensor& tensor, std::span<const int64_t> places) {
  const TensorShape shape = tensor.shape();
  const int64_t count = shape[0] * shape[1] * shape[2] * shape[3];
  return compare(
      count, places, [&](int64_t i) { return tensor.place(detail::unflatten(i, shape)); },
      [&](int64_t i) { return fmt::format("({})", fmt::join(detail::unflatten(i, shape), ",")); });
}

CModelComparison compare_with_cmodel(const MatrixLayout& matrix, std::span<const int64_t> places) {
  const int64_t columns = matrix.columns();
  return compare(
      matrix.rows() * columns, places,
      [&](int64_t i) { return matrix.place(i / columns, i % columns); },
      [&](int64_t i) { return fmt::format("({},{})", i / columns, i % columns); });
}

}  // namespace tessera::npu
