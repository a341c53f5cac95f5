// tpu_mlir_plan_json, tpu_mlir_plan_text and tpu_mlir_plan_summary (tpu_mlir_local_plan.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string_view>

#include "tessera/npu/tpu_mlir_local_plan.h"

namespace tessera::npu {
namespace {

std::string plural(int64_t count, std::string_view what) {
  return fmt::format("{} {}{}", count, what, count == 1 ? "" : "s");
}

std::string steps_text(const TpuMlirTensor& t) {
  return t.timesteps.empty() ? std::string("-") : fmt::format("{}", fmt::join(t.timesteps, ","));
}

std::string slice_text(const TensorShape& s) {
  return fmt::format("{}x{}x{}x{}", s[0], s[1], s[2], s[3]);
}

}  // namespace

nlohmann::ordered_json tpu_mlir_plan_json(const TpuMlirPlanCheck& check) {
  nlohmann::ordered_json groups = nlohmann::ordered_json::array();
  for (const TpuMlirGroupCheck& g : check.groups) {
    nlohmann::ordered_json tensors = nlohmann::ordered_json::array();
    for (const TpuMlirTensor& t : g.tensors) {
      tensors.push_back({{"name", t.name},
                         {"op", t.op},
                         {"line", t.line},
                         {"id", t.id},
                         {"stage", t.stage},
                         {"buffer", t.buffer},
                         {"address", t.address},
                         {"slice", t.slice},
                         {"dtype", t.dtype},
                         {"eu_align", t.eu_align},
                         {"mode", t.mode},
                         {"out_size", t.compiler_bytes},
                         {"bytes_per_npu", t.bytes_per_npu},
                         {"band_bytes", t.band_bytes},
                         {"alignment_bytes", t.alignment_bytes},
                         {"timesteps", t.timesteps}});
    }
    nlohmann::ordered_json steps = nlohmann::ordered_json::array();
    for (const TpuMlirTimestep& s : g.timesteps) {
      steps.push_back({{"ops", s.ops},
                       {"tensors", s.tensors},
                       {"used_bytes", s.used_bytes},
                       {"highest_byte", s.highest_byte},
                       {"alignment_bytes", s.alignment_bytes}});
    }
    const nlohmann::ordered_json plan = plan_check_json(g.check);
    groups.push_back({{"index", g.index},
                      {"line", g.line},
                      {"value", g.value},
                      {"nsecs", g.nsecs},
                      {"csecs", g.csecs},
                      {"dsecs", g.dsecs},
                      {"hsecs", g.hsecs},
                      {"wsecs", g.wsecs},
                      {"swpipl_stage_num", g.swpipl_stage_num},
                      {"size_mismatches", g.size_mismatches},
                      {"stores", g.stores},
                      {"other_ops", g.other_ops},
                      {"tensors", tensors},
                      {"timesteps", steps},
                      {"overlaps", plan["overlaps"]},
                      {"bank_conflicts", plan["bank_conflicts"]},
                      {"plan", plan["plan"]}});
  }
  const nlohmann::ordered_json summary = {{"clean", check.clean()},
                                          {"groups", check.groups.size()},
                                          {"tensors", check.tensors},
                                          {"placements", check.placements},
                                          {"size_mismatches", check.size_mismatches},
                                          {"overlapping_pairs", check.overlaps},
                                          {"bank_conflicts", check.bank_conflicts},
                                          {"tensors_not_fitting", check.not_fitting},
                                          {"ops_outside_groups", check.ops_outside_groups}};
  return {{"summary", summary},
          {"chip", check.chip},
          {"device", format_device(check.device)},
          {"groups", groups}};
}

std::string tpu_mlir_plan_summary(const TpuMlirPlanCheck& check) {
  if (check.clean()) return "clean";
  std::vector<std::string> parts;
  if (check.overlaps > 0) parts.push_back(plural(check.overlaps, "overlapping tensor pair"));
  if (check.bank_conflicts > 0) parts.push_back(plural(check.bank_conflicts, "bank conflict"));
  if (check.size_mismatches > 0) {
    parts.push_back(plural(check.size_mismatches, "tensor") + " whose bytes per NPU differ from " +
                    "out_size");
  }
  if (check.not_fitting > 0)
    parts.push_back(plural(check.not_fitting, "tensor") + " past local memory");
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string tpu_mlir_plan_text(const TpuMlirPlanCheck& check) {
  std::string out = fmt::format(
      "tpu-mlir plan for {} ({}): {}, {}; {} outside groups (global memory)\n", check.chip,
      format_device(check.device), plural(static_cast<int64_t>(check.groups.size()), "layer group"),
      plural(check.tensors, "tensor"), plural(check.ops_outside_groups, "op"));
  out += fmt::format("bytes per NPU: tessera equals out_size on {} of {} tensors\n",
                     check.tensors - check.size_mismatches, check.tensors);
  out += fmt::format("{}\n", tpu_mlir_plan_summary(check));
  for (const TpuMlirGroupCheck& g : check.groups) {
    out += fmt::format(
        "\ngroup {} (line {}, {}): {}, {}; nsecs {}, csecs {}, hsecs {}, wsecs {}, {} stages\n",
        g.index, g.line, g.value.empty() ? "-" : g.value,
        plural(static_cast<int64_t>(g.tensors.size()), "tensor"),
        plural(static_cast<int64_t>(g.timesteps.size()), "timestep"), g.nsecs, g.csecs, g.hsecs,
        g.wsecs, g.swpipl_stage_num);
    out += fmt::format("  {:<14} {:<18} {:>8} {:<18} {:<5} {:<5} {:>9} {:>9} {:>7} {}\n", "tensor",
                       "op", "address", "slice", "dtype", "align", "out_size", "tessera", "waste",
                       "timesteps");
    for (const TpuMlirTensor& t : g.tensors) {
      out +=
          fmt::format("  {:<14} {:<18} {:>8} {:<18} {:<5} {:<5} {:>9} {:>9} {:>7} {}{}\n", t.name,
                      t.op, t.address, slice_text(t.slice), t.dtype, t.eu_align ? "yes" : "no",
                      t.compiler_bytes, t.bytes_per_npu, t.alignment_bytes, steps_text(t),
                      t.bytes_per_npu == t.compiler_bytes ? "" : "  MISMATCH");
    }
    out += fmt::format("  {:<9} {:>7} {:>11} {:>12} {:>9}  {}\n", "timestep", "tensors",
                       "used bytes", "highest byte", "waste", "ops");
    for (std::size_t s = 0; s < g.timesteps.size(); ++s) {
      const TpuMlirTimestep& step = g.timesteps[s];
      out +=
          fmt::format("  {:<9} {:>7} {:>11} {:>12} {:>9}  {}\n", s, step.tensors, step.used_bytes,
                      step.highest_byte, step.alignment_bytes, fmt::join(step.ops, ","));
    }
    for (const PlanOverlap& o : g.check.overlaps) {
      out += fmt::format("  overlap: {} and {} share {} bytes on {} NPUs (bytes {}-{})\n", o.a, o.b,
                         o.bytes, o.npus, o.byte_range.begin, o.byte_range.end);
    }
    for (const PlanBankConflict& c : g.check.bank_conflicts) {
      out += fmt::format("  bank conflict: {} reads {} and writes {} in bank(s) {}\n", c.op, c.a,
                         c.b, fmt::join(c.banks, ","));
    }
  }
  return out;
}

}  // namespace tessera::npu
