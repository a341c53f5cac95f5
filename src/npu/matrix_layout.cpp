#include "tessera/npu/matrix_layout.h"

#include <fmt/format.h>

#include <utility>

#include "tessera/checked_arithmetic.h"
#include "tessera/error.h"
#include "tessera/npu/footprint.h"

namespace tessera::npu {
namespace {

constexpr int64_t kMaxSearchedColumns = int64_t{1} << 32;

void check_matrix(int64_t rows, int64_t columns) {
  if (rows < 1)
    throw Error(ErrorKind::kInvalid, fmt::format("rows is {}: must be at least 1", rows));
  if (columns < 1) {
    throw Error(ErrorKind::kInvalid, fmt::format("columns is {}: must be at least 1", columns));
  }
}

LocalTensor matrix_tensor(Device device, int64_t rows, int64_t columns, ElementType type,
                          int64_t address, int64_t width, NStrideRule rule) {
  check_matrix(rows, columns);
  if (width < 1 || width > columns) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("W is {}: columns per channel must be in [1, {}] (the matrix has {} "
                            "columns)",
                            width, columns, columns));
  }
  LocalLayout layout;
  layout.kind = LayoutKind::kAligned;
  layout.n_stride_rule = rule;
  return LocalTensor(std::move(device), {rows, ceil_divide(columns, width), 1, width}, type,
                     address, layout);
}

}  // namespace

MatrixLayout::MatrixLayout(Device device, int64_t rows, int64_t columns, ElementType type,
                           int64_t address, int64_t width, std::optional<NStrideRule> n_stride_rule)
    : rows_(rows),
      columns_(columns),
      width_(width),
      tensor_(matrix_tensor(device, rows, columns, type, address, width,
                            n_stride_rule.value_or(device.matrix_copy_rule))) {}

std::array<int64_t, 4> MatrixLayout::tensor_index(int64_t row, int64_t column) const {
  if (row < 0 || row >= rows_ || column < 0 || column >= columns_) {
    throw Error(ErrorKind::kOutOfRange,
                fmt::format("matrix index ({},{}) is outside the {} x {} matrix", row, column,
                            rows_, columns_));
  }
  return {row, column / width_, 0, column % width_};
}

int64_t MatrixLayout::local_memory_per_npu() const {
  return busiest_npu_span_bytes(tensor_);
}

ElementPlace MatrixLayout::place(int64_t row, int64_t column) const {
  return tensor_.place(tensor_index(row, column));
}

int64_t best_matrix_width(const Device& device, int64_t rows, int64_t columns, ElementType type,
                          int64_t address, std::optional<NStrideRule> n_stride_rule) {
  const NStrideRule rule = n_stride_rule.value_or(device.matrix_copy_rule);
  check_matrix(rows, columns);
  if (columns > kMaxSearchedColumns) {
    throw Error(ErrorKind::kUnsupported,
                fmt::format("the best-W search tries every W in [1, M]; M = {} is above the "
                            "limit of {}",
                            columns, kMaxSearchedColumns));
  }
  int64_t best_width = 0;
  int64_t best_bytes = 0;
  bool best_within_npus = false;
  // Among the W giving the same C = ceil(M/W), every NPU's span (N-1)*NS + (its rows - 1)*CS + W
  // elements grows strictly with W (NS and CS = align(W) never shrink; which channels and rows
  // an NPU holds depends on C and Q only), so only the smallest such W can win:
  // visiting those, O(sqrt(M)) of them, finds the same W as trying every W in [1, M].
  // Ascending W, so a later W replaces an equal earlier one: ties go to the larger W.
  for (int64_t width = 1;; width = ceil_divide(columns, ceil_divide(columns, width) - 1)) {
    const LocalTensor tensor = matrix_tensor(device, rows, columns, type, address, width, rule);
    const int64_t bytes = busiest_npu_span_bytes(tensor);
    const bool within_npus = tensor.shape()[1] <= device.npus;
    const bool better = best_width == 0 || bytes < best_bytes ||
                        (bytes == best_bytes && within_npus >= best_within_npus);
    if (better) {
      best_width = width;
      best_bytes = bytes;
      best_within_npus = within_npus;
    }
    if (tensor.shape()[1] == 1) break;
  }
  return best_width;
}

}  // namespace tessera::npu
