// One picture of a whole local-memory plan: all of local memory, a column per NPU as
// `draw npu` draws one tensor, a block row per `block_bytes` bytes of offset. Each block is
// coloured by the tensor storing the most bytes in it, hatched in a tensor's colour when it
// stores nothing there but lies inside its band (empty blocks), red where two tensors store the
// same byte; bank boundaries are marked and a legend names every tensor. Blocks carry data-info
// (tensor, element, NPU, byte, bank) for the HTML page's hover panel.
//
// Example (X=4, S=1024): 256 rows of 4-byte blocks; on bm1684 (64 NPUs x 512 KiB) 256 rows of
// 2 KiB blocks. At most kMaxPlanPictureNpus columns are drawn (the first NPUs; the subtitle says
// so): 65536 NPUs made 16 million blocks and more than 2 GB before the bound.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/npu/plan_check.h"

namespace tessera::render {

struct PlanBlock {
  int64_t npu = 0;
  int64_t byte_offset = 0;
  int64_t address = 0;      // npu * S + byte_offset
  int64_t owner = -1;       // tensor storing the most bytes here, -1: none
  int64_t band_owner = -1;  // when owner is -1: the tensor whose band covers it (hatched)
  bool overlap = false;     // two tensors store a byte of this block
  std::string info;         // hover text
};

inline constexpr int64_t kMaxPlanPictureNpus = 256;

struct NpuPlanPicture {
  std::string title;
  std::string subtitle;
  int64_t npus = 0;  // columns drawn: NPUs 0 .. npus-1
  int64_t block_bytes = 0;
  int64_t rows = 0;
  int64_t bank_bytes = 0;
  std::vector<std::string> names;  // tensors that fit, legend order (colour index)
  std::vector<PlanBlock> blocks;   // row-major (row, NPU)
  // Columns that are not NPUs (tpu_mlir_plan_picture.h: one per timestep): their labels and
  // the line saying what a column is; empty: NPUs.
  std::vector<std::string> column_labels;
  std::string caption;
};

NpuPlanPicture build_npu_plan_picture(const npu::PlanCheck& check);
std::string npu_plan_svg(const NpuPlanPicture& picture);
std::string npu_plan_html(const NpuPlanPicture& picture);
// By extension (.svg, .html, .htm), like write_picture.
void write_picture(const NpuPlanPicture& picture, const std::string& path);

}  // namespace tessera::render
