#include "tessera/npu/tpu_mlir_local_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string_view>

#include "tessera/error.h"
#include "tessera/npu/chip.h"
#include "tessera/npu/npu_arguments.h"

namespace tessera::npu {
namespace {

// What a compiler reserving whole channel rows takes per NPU: every stored batch, ceil(C/X)
// rows each of the layout's C stride (aligned: H*W rounded up to the EU alignment). The band of
// LocalTensor ends at the last stored byte instead, short of the last row's alignment padding.
int64_t whole_rows_bytes(const LocalTensor& tensor) {
  return tensor.stored_shape()[0] * tensor.channels_per_npu() * tensor.strides()[1] *
         tensor.stored_element_bytes();
}

// How the compiler stores a tensor, as observed in its out_size (the fixtures' every tensor;
// docs/notes/2026-11-27-tpu-mlir-plans.md): only BM1684 packs, its aligned 8-bit tensors 4N.
struct StorageRule {
  std::string_view chip;
  std::string_view dtypes[2];
  bool eu_align;
  std::string_view mode;
};
constexpr StorageRule kStorageRules[] = {{"bm1684", {"s8", "u8"}, true, "4N"}};

std::string storage_mode_of(const Device& device, const std::string& dtype, bool eu_align) {
  for (const StorageRule& rule : kStorageRules) {
    if (rule.chip == device.name && rule.eu_align == eu_align &&
        (rule.dtypes[0] == dtype || rule.dtypes[1] == dtype)) {
      return std::string(rule.mode);
    }
  }
  return "none";
}

int64_t largest(const std::vector<int64_t>& slices) {
  return *std::max_element(slices.begin(), slices.end());
}

TensorArguments tensor_arguments(const Device& device, const TensorShape& shape,
                                 const std::string& dtype, int64_t address, bool aligned,
                                 const std::string& mode = "none") {
  TensorArguments t;
  t.device = format_device(device);
  t.shape = fmt::format("{},{},{},{}", shape[0], shape[1], shape[2], shape[3]);
  t.dtype = dtype;
  t.address = std::to_string(address);
  t.layout = aligned ? "aligned" : "compact";
  t.mode = mode;
  return t;
}

// The group's tensors without timesteps: each op's result, then its buffer when it has one.
std::vector<TpuMlirTensor> group_tensors(const TpuMlirGroup& group, const Device& device) {
  std::vector<TpuMlirTensor> tensors;
  for (const TpuMlirGroupOp& op : group.ops) {
    if (op.global_result) continue;
    const TpuMlirLocalInfo& info = op.info;
    TpuMlirTensor t;
    t.name = op.value.empty() ? fmt::format("line{}", op.line) : op.value;
    t.op = op.op;
    t.line = op.line;
    t.id = info.id;
    t.stage = info.stage;
    t.address = info.out_addr;
    t.slice = {largest(info.n_slice) * largest(info.d_slice), largest(info.c_slice),
               largest(info.h_slice), largest(info.w_slice)};
    t.dtype = op.dtype;
    t.eu_align = info.eu_align;
    t.mode = storage_mode_of(device, op.dtype, info.eu_align);
    t.compiler_bytes = info.out_size;
    tensors.push_back(t);
    if (info.buffer_size > 0) {
      TpuMlirTensor b = t;
      b.name += ".buffer";
      b.buffer = true;
      b.address = info.buffer_addr;
      b.slice = {1, device.npus, 1, info.buffer_size};
      b.dtype = "u8";
      b.eu_align = false;
      b.mode = "none";
      b.compiler_bytes = info.buffer_size;
      tensors.push_back(b);
    }
  }
  return tensors;
}

// Timesteps per tensor (the header says why modulo the flow's length).
void set_lifetimes(const TpuMlirGroup& group, std::vector<TpuMlirTensor>& tensors) {
  const auto steps = static_cast<int64_t>(group.flow.size());
  std::map<int64_t, int64_t> step_of_id;
  for (int64_t step = 0; step < steps; ++step) {
    for (const int64_t id : group.flow[static_cast<std::size_t>(step)]) {
      step_of_id.emplace(id, step);
    }
  }
  // When an op runs, in timesteps of one slice's pass: (stage) * T + timestep.
  std::map<int64_t, int64_t> time_of_id;
  for (const TpuMlirGroupOp& op : group.ops) {
    const auto step = step_of_id.find(op.info.id);
    if (step != step_of_id.end()) {
      time_of_id[op.info.id] = op.info.stage * steps + step->second;
    }
  }
  std::map<std::string, int64_t> last_read;
  for (const TpuMlirGroupOp& op : group.ops) {
    const auto time = time_of_id.find(op.info.id);
    if (time == time_of_id.end()) continue;
    for (const std::string& operand : op.operands) {
      int64_t& last = last_read.try_emplace(operand, time->second).first->second;
      last = std::max(last, time->second);
    }
  }
  for (TpuMlirTensor& t : tensors) {
    t.timesteps.clear();
    const auto time = time_of_id.find(t.id);
    if (time == time_of_id.end()) continue;  // an op the flow does not run is alive nowhere
    int64_t end = time->second;
    if (!t.buffer) {
      const auto read = last_read.find(t.name);
      if (read != last_read.end()) end = std::max(end, read->second);
    }
    const int64_t span = std::min(end - time->second + 1, steps);
    for (int64_t i = 0; i < span; ++i) t.timesteps.push_back((time->second + i) % steps);
    std::sort(t.timesteps.begin(), t.timesteps.end());
  }
}

Device chip_device(const std::string& chip) {
  for (const Device& device : device_presets()) {
    if (device.name == chip) return device;
  }
  throw Error(ErrorKind::kInvalid,
              fmt::format("field 'module.chip': tessera has no preset for chip '{}' (presets: {})",
                          chip, chip_names()));
}

}  // namespace

bool TpuMlirPlanCheck::clean() const {
  return overlaps == 0 && bank_conflicts == 0 && size_mismatches == 0 && not_fitting == 0;
}

LocalPlan tpu_mlir_group_plan(const TpuMlirGroup& group, const Device& device) {
  std::vector<TpuMlirTensor> tensors = group_tensors(group, device);
  set_lifetimes(group, tensors);
  LocalPlan plan;
  plan.device = device;
  plan.device_text = format_device(device);
  plan.timesteps.resize(group.flow.size());
  for (const TpuMlirTensor& t : tensors) {
    PlanTensor p;
    p.name = t.name;
    p.tensor = tensor_arguments(device, t.slice, t.dtype, t.address, t.eu_align, t.mode);
    plan.tensors.push_back(std::move(p));
    for (const int64_t s : t.timesteps)
      plan.timesteps[static_cast<std::size_t>(s)].push_back(t.name);
  }
  std::map<std::string, bool> known;
  for (const TpuMlirTensor& t : tensors) known[t.name] = true;
  for (const TpuMlirGroupOp& op : group.ops) {
    if (op.global_result) continue;
    PlanOp p;
    p.name = fmt::format("{} {}", op.op, op.value);
    for (const std::string& operand : op.operands) {
      if (known.contains(operand) && operand != op.value) p.reads.push_back(operand);
    }
    if (!op.value.empty()) p.writes.push_back(op.value);
    plan.ops.push_back(std::move(p));
  }
  return plan;
}

TpuMlirPlanCheck check_tpu_mlir_plan(const TpuMlirModule& module, const PlanCheckOptions& options) {
  TpuMlirPlanCheck out;
  out.chip = module.chip;
  out.device = chip_device(module.chip);
  out.ops_outside_groups = module.ops_outside_groups;
  for (std::size_t g = 0; g < module.groups.size(); ++g) {
    const TpuMlirGroup& group = module.groups[g];
    TpuMlirGroupCheck c;
    c.index = static_cast<int64_t>(g);
    c.line = group.line;
    c.value = group.value;
    c.nsecs = group.nsecs;
    c.csecs = group.csecs;
    c.dsecs = group.dsecs;
    c.hsecs = group.hsecs;
    c.wsecs = group.wsecs;
    c.swpipl_stage_num = group.swpipl_stage_num;
    c.tensors = group_tensors(group, out.device);
    c.other_ops = group.other_ops;
    for (const TpuMlirGroupOp& op : group.ops) c.stores += op.global_result ? 1 : 0;
    out.placements += static_cast<int64_t>(group.ops.size());
    set_lifetimes(group, c.tensors);
    for (TpuMlirTensor& t : c.tensors) {
      try {
        const LocalTensor tensor = make_local_tensor(
            tensor_arguments(out.device, t.slice, t.dtype, t.address, t.eu_align, t.mode));
        const LocalTensor compact =
            make_local_tensor(tensor_arguments(out.device, t.slice, t.dtype, 0, false, t.mode));
        t.bytes_per_npu = whole_rows_bytes(tensor);
        t.band_bytes = tensor.bytes_reserved_per_npu();
        t.alignment_bytes = t.bytes_per_npu - whole_rows_bytes(compact);
      } catch (const Error& e) {
        throw Error(e.kind(), fmt::format("line {}: {} {}: {}", t.line, t.op, t.name, e.message()));
      }
      if (t.bytes_per_npu != t.compiler_bytes) ++c.size_mismatches;
    }
    c.check = check_local_plan(tpu_mlir_group_plan(group, out.device), options);
    for (std::size_t s = 0; s < group.flow.size(); ++s) {
      TpuMlirTimestep step;
      step.ops = group.flow[s];
      std::vector<std::pair<int64_t, int64_t>> bands;
      for (const TpuMlirTensor& t : c.tensors) {
        if (!std::binary_search(t.timesteps.begin(), t.timesteps.end(), static_cast<int64_t>(s))) {
          continue;
        }
        ++step.tensors;
        step.alignment_bytes += t.alignment_bytes;
        bands.emplace_back(t.address, t.address + t.bytes_per_npu);
        step.highest_byte = std::max(step.highest_byte, t.address + t.bytes_per_npu);
      }
      std::sort(bands.begin(), bands.end());
      int64_t covered_to = 0;
      for (const auto& [begin, end] : bands) {
        const int64_t from = std::max(begin, covered_to);
        if (end > from) step.used_bytes += end - from;
        covered_to = std::max(covered_to, end);
      }
      c.timesteps.push_back(std::move(step));
    }
    out.tensors += static_cast<int64_t>(c.tensors.size());
    out.size_mismatches += c.size_mismatches;
    out.overlaps += c.check.counts.overlaps;
    out.bank_conflicts += c.check.counts.bank_conflicts;
    out.not_fitting += c.check.counts.not_fitting;
    out.groups.push_back(std::move(c));
  }
  return out;
}

}  // namespace tessera::npu
