#include "tessera/render/npu_picture.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tessera/checked_arithmetic.h"
#include "tessera/npu/storage_mode.h"

namespace tessera::render {
namespace {

// Without --window, at most this many NPUs side by side (a 64-NPU chip would be 5000 px wide).
constexpr int64_t kDefaultNpuColumns = 16;

std::string_view layout_word(const npu::LocalLayout& layout) {
  switch (layout.kind) {
    case npu::LayoutKind::kAligned:
      return "aligned";
    case npu::LayoutKind::kCompact:
      return "compact";
    case npu::LayoutKind::kStrides:
      return "explicit strides";
  }
  return "aligned";
}

NpuPicture build(const npu::LocalTensor& tensor, const npu::MatrixLayout* matrix,
                 const NpuPictureOptions& options) {
  const npu::Device& device = tensor.device();
  const IndexMap& map = tensor.index_map();  // throws kDoesNotFit for a tensor past the end
  NpuPicture p;
  p.npus = device.npus;
  p.block_bytes = tensor.stored_element_bytes();
  p.first_byte = tensor.start().offset / p.block_bytes * p.block_bytes;
  const int64_t band_end = tensor.start().offset + tensor.bytes_reserved_per_npu();
  p.rows = ceil_divide(band_end - p.first_byte, p.block_bytes);
  p.batch_bytes = tensor.shape()[0] > 1 ? tensor.strides()[0] * p.block_bytes : 0;
  const auto& shape = tensor.shape();
  if (matrix) {
    p.title =
        fmt::format("{} {}x{} matrix, W = {} ({} channels), at address {} (NPU {}, offset {})",
                    element_type_name(tensor.element_type()), matrix->rows(), matrix->columns(),
                    matrix->width(), matrix->channels(), tensor.address(), tensor.start().npu,
                    tensor.start().offset);
  } else {
    p.title = fmt::format(
        "{}({}) {}{} at address {} (NPU {}, offset {})", element_type_name(tensor.element_type()),
        fmt::join(shape, ","), layout_word(tensor.layout()),
        tensor.storage_mode() == npu::StorageMode::kNone
            ? std::string()
            : fmt::format(", {} mode", npu::storage_mode_name(tensor.storage_mode())),
        tensor.address(), tensor.start().npu, tensor.start().offset);
  }
  p.subtitle = fmt::format(
      "{} NPUs x {} bytes; blocks of {} bytes ({}); strides N,C,H,W = {} stored elements; {} "
      "channel row(s) per NPU",
      device.npus, device.local_memory_bytes, p.block_bytes,
      npu::stored_type_name(tensor.storage_mode(), tensor.element_type()),
      fmt::join(tensor.strides(), ","), tensor.channels_per_npu());
  p.window = options.window ? resolve_window(*options.window, p.rows, p.npus, options.max_cells)
                            : default_window(p.rows, p.npus, options.max_cells, kDefaultNpuColumns);
  const int64_t element_bytes = tensor.element_bytes();
  const int64_t packing = npu::packing_factor(tensor.storage_mode());
  for (int64_t row = p.window.row_begin; row < p.window.row_end; ++row) {
    for (int64_t q = p.window.col_begin; q < p.window.col_end; ++q) {
      NpuBlock block;
      block.npu = q;
      block.byte_offset = p.first_byte + row * p.block_bytes;
      block.address = q * device.local_memory_bytes + block.byte_offset;
      block.bank = block.byte_offset / device.bank_bytes();
      bool any = false;
      std::vector<std::optional<std::vector<int64_t>>> elements;
      for (int64_t k = 0; k < packing; ++k) {
        auto index = map.logical_index(block.address / element_bytes + k);
        if (index) {
          any = true;
          block.channel = (*index)[1];
          if (matrix) {
            const int64_t column = (*index)[1] * matrix->width() + (*index)[3];
            block.past_matrix = column >= matrix->columns();
            index = std::vector<int64_t>{(*index)[0], column};
          }
        }
        elements.push_back(std::move(index));
      }
      if (any) block.elements = std::move(elements);
      p.blocks.push_back(std::move(block));
    }
  }
  return p;
}

}  // namespace

NpuPicture build_npu_picture(const npu::LocalTensor& tensor, const NpuPictureOptions& options) {
  return build(tensor, nullptr, options);
}

NpuPicture build_npu_picture(const npu::MatrixLayout& matrix, const NpuPictureOptions& options) {
  return build(matrix.tensor(), &matrix, options);
}

}  // namespace tessera::render
