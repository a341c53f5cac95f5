// The matrix layout (spec "Matrix Layout"): an N x M matrix with W columns per channel is the
// aligned tensor (N, ceil(M/W), 1, W); element (i, j) is tensor element (i, j / W, 0, j % W).
// The last channel holds M - W * (ceil(M/W) - 1) columns (the spec's M - W * floor(M/W) is only
// right when W does not divide M; docs/design/npu-local-memory.md).
//
// Example (X=4, S=1024, 128-byte alignment, f32 2x40 at address 0): W=15 gives C=3 channels on
// NPUs 0,1,2, each row taking ceil(15/32)*32 = 32 elements (128 bytes) per NPU, 10 columns in the
// last channel; element (1, 31) is channel 2, w 1 -> NPU 2, byte (32 + 1) * 4 = 132.
#pragma once

#include <cstdint>
#include <optional>

#include "tessera/element_type.h"
#include "tessera/npu/device.h"
#include "tessera/npu/local_tensor.h"

namespace tessera::npu {

class MatrixLayout {
 public:
  // Throws Error(kInvalid) for rows < 1, columns < 1, width < 1 or width > columns, and every
  // error LocalTensor's constructor gives for the aligned tensor (address alignment, ...).
  // The row stride is the device's own matrix copy's (Device::matrix_copy_rule: BM1684 counts
  // ceil(C/X) channel rows, its successors ceil((Q+C)/X)) unless `n_stride_rule` says otherwise.
  MatrixLayout(Device device, int64_t rows, int64_t columns, ElementType type, int64_t address,
               int64_t width, std::optional<NStrideRule> n_stride_rule = std::nullopt);

  int64_t rows() const { return rows_; }
  int64_t columns() const { return columns_; }
  int64_t width() const { return width_; }                 // W: columns per channel
  int64_t channels() const { return tensor_.shape()[1]; }  // C = ceil(M / W)
  int64_t last_channel_columns() const { return columns_ - width_ * (channels() - 1); }
  // Bytes one matrix row takes in each NPU: the N stride in bytes.
  int64_t row_bytes_per_npu() const { return tensor_.strides()[0] * tensor_.element_bytes(); }
  // The aligned tensor (N, C, 1, W) holding the matrix; columns past M in the last channel are
  // outside the matrix (the tensor's own footprint counts them as data).
  const LocalTensor& tensor() const { return tensor_; }
  // The busiest NPU's span in bytes (footprint.h): what the best-W search minimises.
  int64_t local_memory_per_npu() const;

  // (i, j) -> (i, j / W, 0, j % W). Throws Error(kOutOfRange) outside the matrix.
  std::array<int64_t, 4> tensor_index(int64_t row, int64_t column) const;
  ElementPlace place(int64_t row, int64_t column) const;

 private:
  int64_t rows_;
  int64_t columns_;
  int64_t width_;
  LocalTensor tensor_;
};

// The W in [1, M] whose layout needs the least local memory per NPU (local_memory_per_npu: the
// busiest NPU's span from its first to its last byte); ties go to C <= X, then to the larger W
// (fewer channels). Throws like MatrixLayout (rows, columns, address) and Error(kUnsupported) for
// M above 2^32. Example (X=4, 128-byte alignment, f32 2x40 at NPU 0): W=10 (C=4) with 168 bytes,
// against 208 for W=20 and 416 for W=40 and W=8.
int64_t best_matrix_width(const Device& device, int64_t rows, int64_t columns, ElementType type,
                          int64_t address, std::optional<NStrideRule> n_stride_rule = std::nullopt);

}  // namespace tessera::npu
