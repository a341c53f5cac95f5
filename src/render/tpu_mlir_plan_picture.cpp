#include "tessera/render/tpu_mlir_plan_picture.h"

#include <fmt/format.h>

#include <algorithm>

namespace tessera::render {

NpuPlanPicture build_tpu_mlir_plan_picture(const npu::TpuMlirPlanCheck& check) {
  NpuPlanPicture p;
  const npu::Device& device = check.device;
  p.title = fmt::format("tpu-mlir's local-memory plan for {}", check.chip);
  p.caption =
      "one column per timestep of each layer group (G group T timestep), byte offsets inside "
      "every NPU on the left; dashed lines: bank boundaries";
  p.rows = 256;
  p.block_bytes = std::max<int64_t>(1, device.local_memory_bytes / p.rows);
  p.rows = (device.local_memory_bytes + p.block_bytes - 1) / p.block_bytes;
  p.bank_bytes = device.bank_bytes();
  // Columns: (group, timestep); legend: every tensor of every group.
  struct Column {
    const npu::TpuMlirGroupCheck* group;
    int64_t step;
  };
  std::vector<Column> columns;
  std::vector<int64_t> first_name;  // per group, its first tensor's legend index
  for (const npu::TpuMlirGroupCheck& g : check.groups) {
    first_name.push_back(static_cast<int64_t>(p.names.size()));
    for (const npu::TpuMlirTensor& t : g.tensors) {
      p.names.push_back(fmt::format("G{} {} ({})", g.index, t.name, t.op));
    }
    for (std::size_t s = 0; s < g.timesteps.size(); ++s) {
      columns.push_back({&g, static_cast<int64_t>(s)});
    }
  }
  const auto total = static_cast<int64_t>(columns.size());
  p.npus = std::min(total, kMaxPlanPictureNpus);
  p.subtitle =
      fmt::format("{}: {} layer groups, {} timesteps; one block = {} bytes; {} overlapping pairs",
                  check.chip, check.groups.size(), total, p.block_bytes, check.overlaps);
  if (p.npus < total) p.subtitle += fmt::format("; timesteps 0-{} drawn of {}", p.npus - 1, total);
  for (int64_t c = 0; c < p.npus; ++c) {
    const Column& col = columns[static_cast<std::size_t>(c)];
    p.column_labels.push_back(fmt::format("G{} T{}", col.group->index, col.step));
  }
  for (int64_t row = 0; row < p.rows; ++row) {
    const int64_t begin = row * p.block_bytes;
    const int64_t end = std::min(begin + p.block_bytes, device.local_memory_bytes);
    for (int64_t c = 0; c < p.npus; ++c) {
      const Column& col = columns[static_cast<std::size_t>(c)];
      PlanBlock block;
      block.npu = c;
      block.byte_offset = begin;
      block.address = begin;
      int64_t most = 0;
      std::vector<std::pair<int64_t, int64_t>> alive;  // bands inside the block
      std::string who;
      const auto& tensors = col.group->tensors;
      for (std::size_t i = 0; i < tensors.size(); ++i) {
        const npu::TpuMlirTensor& t = tensors[i];
        if (!std::binary_search(t.timesteps.begin(), t.timesteps.end(), col.step)) continue;
        const int64_t from = std::max(begin, t.address);
        const int64_t to = std::min(end, t.address + t.bytes_per_npu);
        if (from >= to) continue;
        for (const auto& [a, b] : alive) block.overlap = block.overlap || (from < b && a < to);
        alive.emplace_back(from, to);
        if (to - from > most) {
          most = to - from;
          block.owner =
              first_name[static_cast<std::size_t>(col.group->index)] + static_cast<int64_t>(i);
        }
        who += fmt::format("{}{} ({})", who.empty() ? "" : ", ", t.name, t.op);
      }
      block.info = fmt::format("group {}, timestep {}, bytes {}-{}: {}", col.group->index, col.step,
                               begin, end, who.empty() ? "free" : who);
      p.blocks.push_back(std::move(block));
    }
  }
  return p;
}

}  // namespace tessera::render
