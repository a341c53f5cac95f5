#include "local_index_map.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <vector>

#include "tessera/checked_arithmetic.h"
#include "tessera/error.h"

namespace tessera::npu::detail {
namespace {

// Element-by-element checks are bounded so a typo cannot make tessera allocate gigabytes.
constexpr int64_t kMaxEnumeratedElements = int64_t{1} << 22;

struct WithinNpuAxis {
  int64_t extent;
  int64_t stride;  // stored elements
};

// The axes that place an element inside its NPU: N (stored), channel row, H, W.
std::array<WithinNpuAxis, 4> within_npu_axes(const LocalTensor& tensor) {
  const TensorShape& stored = tensor.stored_shape();
  const Strides& s = tensor.strides();
  return {
      {{stored[0], s[0]}, {tensor.channels_per_npu(), s[1]}, {stored[2], s[2]}, {stored[3], s[3]}}};
}

std::string format_index(const std::array<int64_t, 4>& index) {
  return fmt::format("({},{},{},{})", index[0], index[1], index[2], index[3]);
}

int64_t element_count(const LocalTensor& tensor) {
  int64_t count = 1;
  for (int64_t d : tensor.shape()) count = checked_multiply(count, d, "the number of elements");
  return count;
}

// For strides that interleave without overlapping: the forward formula plus an inverse table.
class InterleavedLocalFunction : public IndexFunction {
 public:
  explicit InterleavedLocalFunction(const LocalTensor& tensor)
      : formula_(tensor), shape_(tensor.shape()) {
    const int64_t count = element_count(tensor);
    inverse_.reserve(static_cast<std::size_t>(count));
    for (int64_t linear = 0; linear < count; ++linear) {
      inverse_.emplace(formula_.element_offset(unflatten(linear, shape_)), linear);
    }
  }
  int64_t offset_of(std::span<const int64_t> index) const override {
    return formula_.element_offset({index[0], index[1], index[2], index[3]});
  }
  std::optional<std::vector<int64_t>> index_at(int64_t offset) const override {
    const auto found = inverse_.find(offset);
    if (found == inverse_.end()) return std::nullopt;
    const auto index = unflatten(found->second, shape_);
    return std::vector<int64_t>(index.begin(), index.end());
  }

 private:
  PlacementFormula formula_;
  TensorShape shape_;
  std::unordered_map<int64_t, int64_t> inverse_;
};

}  // namespace

std::array<int64_t, 4> unflatten(int64_t linear, const TensorShape& shape) {
  std::array<int64_t, 4> index{};
  for (int axis = 3; axis >= 0; --axis) {
    index[axis] = linear % shape[axis];
    linear /= shape[axis];
  }
  return index;
}

PlacementFormula::PlacementFormula(const LocalTensor& tensor)
    : npus(tensor.device().npus),
      local_memory_bytes(tensor.device().local_memory_bytes),
      start_npu(tensor.start().npu),
      start_offset(tensor.start().offset),
      element_bytes(tensor.element_bytes()),
      packing(packing_factor(tensor.storage_mode())),
      strides(tensor.strides()) {}

std::pair<int64_t, int64_t> PlacementFormula::npu_and_byte(
    const std::array<int64_t, 4>& index) const {
  const int64_t channel = start_npu + index[1];
  const int64_t stored_offset = (index[0] / packing) * strides[0] + channel / npus * strides[1] +
                                index[2] * strides[2] + index[3] * strides[3];
  return {channel % npus,
          start_offset + (stored_offset * packing + index[0] % packing) * element_bytes};
}

int64_t PlacementFormula::element_offset(const std::array<int64_t, 4>& index) const {
  const auto [npu, byte] = npu_and_byte(index);
  return (npu * local_memory_bytes + byte) / element_bytes;
}

bool strides_nest(const LocalTensor& tensor) {
  std::vector<WithinNpuAxis> axes;
  for (const WithinNpuAxis& axis : within_npu_axes(tensor)) {
    if (axis.extent > 1) axes.push_back(axis);
  }
  std::sort(axes.begin(), axes.end(),
            [](const WithinNpuAxis& a, const WithinNpuAxis& b) { return a.stride < b.stride; });
  int64_t span = 0;  // largest stored offset reached by the smaller axes
  for (const WithinNpuAxis& axis : axes) {
    if (axis.stride <= span) return false;
    span += (axis.extent - 1) * axis.stride;  // bounded: the constructor checked the extent
  }
  return true;
}

void check_no_overlap(const LocalTensor& tensor) {
  // Positions per NPU: if there are more than the span has slots, two must coincide.
  int64_t positions = 1;
  int64_t span = 0;
  for (const WithinNpuAxis& axis : within_npu_axes(tensor)) {
    positions = checked_multiply(positions, axis.extent, "the number of positions");
    if (axis.extent > 1) span += (axis.extent - 1) * axis.stride;
  }
  const int64_t count = element_count(tensor);
  if (count > kMaxEnumeratedElements) {
    if (positions > span + 1) {
      throw Error(ErrorKind::kInvalid,
                  fmt::format("strides make elements overlap: {} positions per NPU in a span of "
                              "{} stored elements",
                              positions, span + 1));
    }
    throw Error(ErrorKind::kUnsupported,
                fmt::format("strides interleave (a stride is not larger than the span of the "
                            "smaller ones); tessera checks such strides element by element only "
                            "up to {} elements, this tensor has {}",
                            kMaxEnumeratedElements, count));
  }
  // Keyed by (NPU, byte inside it): a tensor that does not fit must not meet the next NPU.
  const PlacementFormula formula(tensor);
  // Unsigned arithmetic: byte offsets near 2^63 wrap instead of overflowing (fuzz_npu_arguments).
  const auto hash = [](const std::pair<int64_t, int64_t>& key) {
    return std::hash<uint64_t>()(static_cast<uint64_t>(key.second) * 1000003u +
                                 static_cast<uint64_t>(key.first));
  };
  std::unordered_map<std::pair<int64_t, int64_t>, int64_t, decltype(hash)> owner(
      static_cast<std::size_t>(count), hash);
  for (int64_t linear = 0; linear < count; ++linear) {
    const auto index = unflatten(linear, tensor.shape());
    const auto [it, inserted] = owner.emplace(formula.npu_and_byte(index), linear);
    if (!inserted) {
      throw Error(ErrorKind::kInvalid,
                  fmt::format("strides make elements overlap: {} and {} both at byte {} of NPU {}",
                              format_index(unflatten(it->second, tensor.shape())),
                              format_index(index), it->first.second, it->first.first));
    }
  }
}

std::shared_ptr<const IndexMap> compile_index_map(const LocalTensor& tensor) {
  const Device& device = tensor.device();
  const int64_t e = tensor.element_bytes();
  const int64_t packing = packing_factor(tensor.storage_mode());
  const TensorShape& shape = tensor.shape();
  const TensorShape& stored = tensor.stored_shape();
  const Strides& s = tensor.strides();
  std::vector<int64_t> dims(shape.begin(), shape.end());
  const int64_t size_elements = device.total_bytes() / e;
  if (!strides_nest(tensor)) {
    if (element_count(tensor) > kMaxEnumeratedElements) {
      throw Error(ErrorKind::kUnsupported,
                  fmt::format("strides that interleave give an IndexMap backed by an inverse "
                              "table, built only up to {} elements (this tensor has {}); element "
                              "placement works without it",
                              kMaxEnumeratedElements, element_count(tensor)));
    }
    return std::make_shared<const IndexMap>(
        std::move(dims), static_cast<int>(e * 8), size_elements,
        std::make_shared<const InterleavedLocalFunction>(tensor));
  }
  // Offsets count elements; a stored element is `packing` elements, so stored strides scale.
  DigitForm form;
  form.digits = {
      {1, 1, device.npus, device.local_memory_bytes / e},           // NPU (Q + c) mod X
      {1, device.npus, tensor.channels_per_npu(), s[1] * packing},  // channel row (Q + c) / X
      {0, packing, stored[0], s[0] * packing},                      // stored N
      {2, 1, stored[2], s[2] * packing},
      {3, 1, stored[3], s[3] * packing},
      {0, 1, packing, 1},  // 4N / 2N / 2IC: slot n mod packing inside the stored element
  };
  std::erase_if(form.digits, [](const Digit& d) { return d.extent == 1; });
  std::stable_sort(form.digits.begin(), form.digits.end(),
                   [](const Digit& a, const Digit& b) { return a.stride > b.stride; });
  form.origins = {0, tensor.start().npu, 0, 0};
  form.base = tensor.start().offset / e;
  return std::make_shared<const IndexMap>(std::move(dims), static_cast<int>(e * 8), size_elements,
                                          std::move(form));
}

}  // namespace tessera::npu::detail
