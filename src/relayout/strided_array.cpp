#include "tessera/relayout/strided_array.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <optional>

#include "relayout/strided_operand.h"
#include "tessera/checked_arithmetic.h"
#include "tessera/error.h"

namespace tessera::relayout {
namespace {

const char* side_name(StridedUse use) {
  return use == StridedUse::kSource ? "source" : "destination";
}

void check_shape(const StridedArray& array, StridedUse use) {
  const char* side = side_name(use);
  if (array.dims.size() != array.byte_strides.size()) {
    throw Error(ErrorKind::kArgument,
                fmt::format("the strided {} has {} dimensions but {} strides", side,
                            array.dims.size(), array.byte_strides.size()));
  }
  if (array.element_bits <= 0 || array.element_bits % 8 != 0) {
    throw Error(ErrorKind::kArgument,
                fmt::format("the strided {}'s elements are {} bits: strides address whole bytes, "
                            "so elements must be whole bytes",
                            side, array.element_bits));
  }
  const int64_t bytes = array.element_bits / 8;
  for (std::size_t i = 0; i < array.dims.size(); ++i) {
    if (array.dims[i] < 0) {
      throw Error(ErrorKind::kArgument, fmt::format("dimension {} of the strided {} has negative "
                                                    "size {}",
                                                    i, side, array.dims[i]));
    }
    if (array.byte_strides[i] % bytes != 0) {
      throw Error(ErrorKind::kArgument,
                  fmt::format("dimension {} of the strided {} has a stride of {} bytes, not a "
                              "multiple of its {}-byte elements",
                              i, side, array.byte_strides[i], bytes));
    }
  }
}

// A destination must hold every element in its own bytes. Nested strides (each at least the
// span of all smaller ones plus one element) guarantee it and cover every NumPy array that owns
// its data and every view of one made by slicing, stepping, reversing or transposing.
void check_own_bytes(const StridedArray& array) {
  const int64_t bytes = array.element_bits / 8;
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < array.dims.size(); ++i) {
    if (array.dims[i] <= 1) continue;
    if (array.byte_strides[i] == 0) {
      throw Error(ErrorKind::kArgument,
                  fmt::format("dimension {} of the strided destination has stride 0 (a broadcast "
                              "view): its {} elements would share the same bytes; give an array "
                              "that holds every element once",
                              i, array.dims[i]));
    }
    order.push_back(i);
  }
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::abs(array.byte_strides[a]) < std::abs(array.byte_strides[b]);
  });
  int64_t span = bytes;  // bytes covered by one element and the dimensions of smaller strides
  for (std::size_t i : order) {
    const int64_t stride = std::abs(array.byte_strides[i]);
    if (stride < span) {
      throw Error(ErrorKind::kArgument,
                  fmt::format("dimension {} of the strided destination has a stride of {} bytes, "
                              "inside the {} bytes its smaller strides span: elements would "
                              "overlap; give an array that holds every element once",
                              i, array.byte_strides[i], span));
    }
    span = checked_add(span, checked_multiply(array.dims[i] - 1, stride, "a strided footprint"),
                       "a strided footprint");
  }
}

}  // namespace

StridedFootprint check_strided_array(const StridedArray& array, StridedUse use) {
  check_shape(array, use);
  if (std::find(array.dims.begin(), array.dims.end(), 0) != array.dims.end()) return {};
  if (use == StridedUse::kDestination) check_own_bytes(array);
  int64_t below = 0;  // bytes before element 0
  int64_t above = 0;  // bytes after element 0's first byte
  for (std::size_t i = 0; i < array.dims.size(); ++i) {
    const int64_t reach =
        checked_multiply(array.dims[i] - 1, std::abs(array.byte_strides[i]), "a strided footprint");
    int64_t& side = array.byte_strides[i] < 0 ? below : above;
    side = checked_add(side, reach, "a strided footprint");
  }
  const int64_t size = checked_add(checked_add(below, above, "a strided footprint"),
                                   array.element_bits / 8, "a strided footprint");
  return {below, size};
}

namespace {

// offset = base + sum e_i * stride_i (elements): what the general walk asks of a strided side.
class StridedFunction final : public IndexFunction {
 public:
  StridedFunction(int64_t base, std::vector<int64_t> strides)
      : base_(base), strides_(std::move(strides)) {}
  int64_t offset_of(std::span<const int64_t> index) const override {
    int64_t offset = base_;
    for (std::size_t i = 0; i < strides_.size(); ++i) offset += index[i] * strides_[i];
    return offset;
  }
  // A source may give several elements one offset (broadcast), so offsets are not inverted; the
  // plan never asks (it walks logical indices).
  std::optional<std::vector<int64_t>> index_at(int64_t) const override { return std::nullopt; }

 private:
  int64_t base_;
  std::vector<int64_t> strides_;
};

}  // namespace

StridedOperand strided_operand(const StridedArray& array, StridedUse use) {
  const StridedFootprint footprint = check_strided_array(array, use);
  const int64_t bytes = array.element_bits / 8;
  std::vector<int64_t> strides;
  DigitForm form;
  form.base = footprint.first_element / bytes;
  form.origins.assign(array.dims.size(), 0);
  for (std::size_t i = 0; i < array.dims.size(); ++i) {
    strides.push_back(array.byte_strides[i] / bytes);
    // A zero stride gets no digit: the engine then reads the dimension's one place for all of
    // its values (common_refinement.cpp's stride_at of a side without digits).
    if (array.dims[i] > 1 && strides.back() != 0)
      form.digits.push_back({static_cast<int>(i), 1, array.dims[i], strides.back()});
  }
  IndexMap map(array.dims, array.element_bits, footprint.size_bytes / bytes,
               std::make_shared<StridedFunction>(form.base, std::move(strides)));
  return {std::move(map), std::move(form)};
}

}  // namespace tessera::relayout
