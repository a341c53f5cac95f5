// Pictures of NPU local memory, drawn as the NPU documentation draws them
// (docs/design/npu-local-memory.md): one column per NPU, one block per stored element (4 bytes for
// f32, s8x4 and s16x2; 1 for s8), rows in byte order from the tensor's start offset. Each block is
// labelled with the element it holds; empty blocks (gaps of the aligned layout, channel slots no
// channel uses) stay blank and the dummies of 4N/2N/2IC are hatched.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tessera/npu/local_tensor.h"
#include "tessera/npu/matrix_layout.h"
#include "tessera/render/grid_window.h"

namespace tessera::render {

struct NpuBlock {
  int64_t npu = 0;
  int64_t byte_offset = 0;  // inside the NPU
  int64_t address = 0;      // npu * S + byte_offset
  int64_t bank = 0;
  // One entry per packed element (1, or 4 for 4N, 2 for 2N/2IC): the element's index (n,c,h,w),
  // or for a matrix (i,j); nullopt for a dummy. Empty when the block holds no element.
  std::vector<std::optional<std::vector<int64_t>>> elements;
  int64_t channel = -1;      // channel of its elements, for the colour; -1 when empty
  bool past_matrix = false;  // matrix: columns past M in the last channel
};

struct NpuPictureOptions {
  std::optional<GridWindow> window;  // rows: block rows; columns: NPUs
  int64_t max_cells = 4096;
};

struct NpuPicture {
  std::string title;     // "f32(2,3,4,5) aligned at address 2048 (NPU 2, offset 0)"
  std::string subtitle;  // device and strides
  int64_t npus = 0;
  int64_t block_bytes = 0;
  int64_t first_byte = 0;   // byte offset of block row 0
  int64_t rows = 0;         // all block rows of the reserved band
  int64_t batch_bytes = 0;  // N stride in bytes (row boundaries drawn between batches); 0: none
  GridWindow window;
  std::vector<NpuBlock> blocks;  // the window, row-major (row, NPU)
};

// Example (spec "Strides in Local Memory", X=4, f32 (2,5,3,4) at NPU 0 with strides
// (120,56,16,2)): 4 columns of 4-byte blocks; block (NPU 1, byte 8) holds element (0,1,0,1).
// Throws Error(kDoesNotFit) when the tensor runs past local memory, and like resolve_window.
NpuPicture build_npu_picture(const npu::LocalTensor& tensor, const NpuPictureOptions& options);
// The matrix layout: blocks labelled with matrix indices (i,j).
NpuPicture build_npu_picture(const npu::MatrixLayout& matrix, const NpuPictureOptions& options);

std::string npu_svg(const NpuPicture& picture);
std::string npu_html(const NpuPicture& picture);
// By extension, like write_picture for XLA pictures.
void write_picture(const NpuPicture& picture, const std::string& path);

}  // namespace tessera::render
