// plan_check_json and plan_check_text (plan_check.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>
#include <string_view>

#include "tessera/npu/plan_check.h"

namespace tessera::npu {
namespace {

constexpr const char* kEmptyBlockWarning =
    "reuses empty blocks of another tensor's band; the spec warns the data may be destroyed when "
    "NPUs work in parallel (\"Try not to reuse the empty blocks\")";

nlohmann::ordered_json element_json(const std::optional<std::vector<int64_t>>& element) {
  return element ? nlohmann::ordered_json(*element) : nlohmann::ordered_json(nullptr);
}

std::string element_text(const std::optional<std::vector<int64_t>>& element) {
  return element ? fmt::format("({})", fmt::join(*element, ",")) : std::string("a dummy");
}

// "0-3" for 0,1,2,3; "0,2" otherwise.
std::string bank_list(const std::vector<int64_t>& banks) {
  if (banks.empty()) return "-";
  if (banks.back() - banks.front() + 1 == static_cast<int64_t>(banks.size()) && banks.size() > 1) {
    return fmt::format("{}-{}", banks.front(), banks.back());
  }
  return fmt::format("{}", fmt::join(banks, ","));
}

std::string plural(int64_t count, std::string_view what) {
  return fmt::format("{} {}{}", count, what, count == 1 ? "" : "s");
}

// ", the first 100 listed (--max-overlaps)" when the list was cut.
std::string listed_note(int64_t count, const PlanCheck& check) {
  if (count <= check.max_listed) return "";
  return fmt::format("; the first {} listed, --max-overlaps N for more", check.max_listed);
}

// "NPU 3", "64 NPUs (0-63)", "3 NPUs (first 2)"; `last` unknown when max().
std::string npu_span(int64_t npus, int64_t first, int64_t last) {
  if (npus == 1) return fmt::format("NPU {}", first);
  if (last != std::numeric_limits<int64_t>::max() && last - first + 1 == npus) {
    return fmt::format("{} NPUs ({}-{})", npus, first, last);
  }
  return fmt::format(
      "{} NPUs (first {}{})", npus, first,
      last == std::numeric_limits<int64_t>::max() ? "" : fmt::format(", last {}", last));
}

}  // namespace

nlohmann::ordered_json plan_check_json(const PlanCheck& check) {
  nlohmann::ordered_json tensors = nlohmann::ordered_json::array();
  for (const PlannedTensor& t : check.tensors) {
    nlohmann::ordered_json object = {{"name", t.name}};
    if (t.tensor) {
      object["address"] = t.tensor->address();
      object["start_npu"] = t.tensor->start().npu;
      object["start_offset"] = t.tensor->start().offset;
    } else {
      object["address"] = "auto";
    }
    object["fits"] = t.fits;
    object["bytes_per_npu"] = t.bytes_per_npu;
    object["banks"] = t.banks;
    if (t.matrix_width) object["w"] = *t.matrix_width;
    if (t.best_width) object["best_w"] = true;
    if (!t.fits) {
      nlohmann::ordered_json slices = nlohmann::ordered_json::array();
      for (const PlanSlice& s : t.slices) {
        slices.push_back({{"dim", std::string(1, s.dim)},
                          {"count", s.count},
                          {"shape", s.shape},
                          {"bytes_per_npu", s.bytes_per_npu}});
      }
      object["slices"] = slices;
      if (t.free_band) object["free_band"] = *t.free_band;
    }
    if (!t.placement.empty()) object["placement"] = t.placement;
    tensors.push_back(std::move(object));
  }
  nlohmann::ordered_json overlaps = nlohmann::ordered_json::array();
  for (const PlanOverlap& o : check.overlaps) {
    overlaps.push_back({{"a", o.a},
                        {"b", o.b},
                        {"npus", o.npus},
                        {"first_npu", o.first_npu},
                        {"last_npu", o.last_npu},
                        {"bytes", o.bytes},
                        {"byte_range", {o.byte_range.begin, o.byte_range.end}},
                        {"first_byte", o.first_byte},
                        {"a_element", element_json(o.a_element)},
                        {"b_element", element_json(o.b_element)}});
  }
  nlohmann::ordered_json reuse = nlohmann::ordered_json::array();
  for (const PlanEmptyBlockReuse& r : check.empty_block_reuse) {
    reuse.push_back({{"tensor", r.tensor},
                     {"inside", r.inside},
                     {"npu", r.npu},
                     {"bytes", r.bytes},
                     {"warning", kEmptyBlockWarning}});
  }
  nlohmann::ordered_json conflicts = nlohmann::ordered_json::array();
  for (const PlanBankConflict& c : check.bank_conflicts) {
    conflicts.push_back({{"op", c.op},
                         {"a", c.a},
                         {"b", c.b},
                         {"banks", c.banks},
                         {"npus", c.npus},
                         {"first_npu", c.first_npu}});
  }
  nlohmann::ordered_json npus = nlohmann::ordered_json::array();
  for (const PlanNpuUsage& n : check.npus) {
    npus.push_back({{"npu", n.npu},
                    {"used_bytes", n.used_bytes},
                    {"free_bytes", n.free_bytes},
                    {"largest_free_run", n.largest_free_run}});
  }
  const PlanCounts& counts = check.counts;
  const nlohmann::ordered_json summary = {{"clean", check.clean()},
                                          {"overlapping_pairs", counts.overlaps},
                                          {"empty_block_reuse", counts.empty_block_reuse},
                                          {"bank_conflicts", counts.bank_conflicts},
                                          {"tensors_not_placed", counts.not_placed},
                                          {"tensors_not_fitting", counts.not_fitting},
                                          {"listed_at_most", check.max_listed}};
  return {
      {"summary", summary},   {"plan", local_plan_json(check.plan)}, {"tensors", tensors},
      {"overlaps", overlaps}, {"empty_block_reuse", reuse},          {"bank_conflicts", conflicts},
      {"npus", npus}};
}

std::string plan_check_summary(const PlanCheck& check) {
  const PlanCounts& c = check.counts;
  std::vector<std::string> problems;
  const auto add = [&](int64_t count, const char* one, const char* many) {
    if (count > 0) problems.push_back(fmt::format("{} {}", count, count == 1 ? one : many));
  };
  add(c.overlaps, "overlapping tensor pair", "overlapping tensor pairs");
  add(c.not_placed, "auto tensor not placed", "auto tensors not placed");
  add(c.not_fitting, "tensor past the end of local memory", "tensors past the end of local memory");
  add(c.bank_conflicts, "op read/write pair sharing banks", "op read/write pairs sharing banks");
  if (problems.empty()) {
    return c.empty_block_reuse > 0
               ? fmt::format("clean ({} empty-block reuse warning{})", c.empty_block_reuse,
                             c.empty_block_reuse == 1 ? "" : "s")
               : std::string("clean");
  }
  return fmt::format("{}", fmt::join(problems, ", "));
}

std::string plan_check_text(const PlanCheck& check) {
  const Device& device = check.plan.device;
  std::string out = fmt::format("device   {}: {} NPUs x {} bytes, alignment {}, {} bank(s) of {}\n",
                                device.name, device.npus, device.local_memory_bytes,
                                device.alignment_bytes, device.banks, device.bank_bytes());
  out += "tensors\n";
  for (const PlannedTensor& t : check.tensors) {
    const std::string width =
        t.matrix_width ? fmt::format(", W {}{}", *t.matrix_width, t.best_width ? " (best)" : "")
                       : std::string();
    if (!t.tensor) {
      out += fmt::format(
          "  {:<10} auto, NOT placed ({} bytes per NPU{}; the longest free band is "
          "{} bytes)\n",
          t.name, t.bytes_per_npu, width, t.free_band.value_or(0));
    } else {
      out +=
          fmt::format("  {:<10} address {} (NPU {}, offset {}), band {} bytes per NPU{}, {}\n",
                      t.name, t.tensor->address(), t.tensor->start().npu, t.tensor->start().offset,
                      t.bytes_per_npu, width, t.fits ? "fits" : "does NOT fit");
    }
    if (t.fits && device.banks > 1) {
      std::vector<int64_t> all;
      for (const auto& banks : t.banks) all.insert(all.end(), banks.begin(), banks.end());
      std::sort(all.begin(), all.end());
      all.erase(std::unique(all.begin(), all.end()), all.end());
      out += fmt::format("             banks {} (over all NPUs)\n", bank_list(all));
    }
    if (!t.placement.empty()) out += fmt::format("             auto: {}\n", t.placement);
    for (const PlanSlice& s : t.slices) {
      out += fmt::format("             slice {}: {} slices of ({}), {} bytes per NPU\n", s.dim,
                         s.count, fmt::join(s.shape, ","), s.bytes_per_npu);
    }
    if (!t.fits && t.slices.empty()) {
      out += t.tensor ? "             no single-dimension slicing fits\n"
                      : "             no single-dimension slicing fits the longest free band\n";
    }
  }
  out += fmt::format("overlaps ({}{})\n", plural(check.counts.overlaps, "tensor pair"),
                     listed_note(check.counts.overlaps, check));
  for (const PlanOverlap& o : check.overlaps) {
    out += fmt::format(
        "  {} and {} share {} bytes on {}, offsets [{}, {}); first byte {} of NPU {}: {} of {}, "
        "{} of {}\n",
        o.a, o.b, o.bytes, npu_span(o.npus, o.first_npu, o.last_npu), o.byte_range.begin,
        o.byte_range.end, o.first_byte, o.first_npu, element_text(o.a_element), o.a,
        element_text(o.b_element), o.b);
  }
  out += fmt::format("empty-block reuse ({}{})\n", check.counts.empty_block_reuse,
                     listed_note(check.counts.empty_block_reuse, check));
  for (const PlanEmptyBlockReuse& r : check.empty_block_reuse) {
    out +=
        fmt::format("  {} stores {} bytes inside the band of {} (first on NPU {}): warning: {}\n",
                    r.tensor, r.bytes, r.inside, r.npu, kEmptyBlockWarning);
  }
  if (device.banks > 1) {
    out += fmt::format("bank conflicts ({}{})\n", plural(check.counts.bank_conflicts, "op pair"),
                       listed_note(check.counts.bank_conflicts, check));
    for (const PlanBankConflict& c : check.bank_conflicts) {
      out += fmt::format("  op {}: reads {} and writes {} in bank(s) {} on {}\n", c.op, c.a, c.b,
                         bank_list(c.banks),
                         npu_span(c.npus, c.first_npu, std::numeric_limits<int64_t>::max()));
    }
  }
  out += "NPUs (used / free / largest free run, bytes)\n";
  for (std::size_t first = 0; first < check.npus.size();) {
    std::size_t last = first;
    const PlanNpuUsage& n = check.npus[first];
    while (last + 1 < check.npus.size() && check.npus[last + 1].used_bytes == n.used_bytes &&
           check.npus[last + 1].largest_free_run == n.largest_free_run) {
      ++last;
    }
    const std::string which =
        first == last ? fmt::format("NPU {}", first) : fmt::format("NPUs {}-{}", first, last);
    out += fmt::format("  {:<10} {} / {} / {}\n", which, n.used_bytes, n.free_bytes,
                       n.largest_free_run);
    first = last + 1;
  }
  out += fmt::format("check    {}\n", plan_check_summary(check));
  out += "plan (with the chosen addresses and widths, ready to paste)\n";
  // One line per tensor and op: short enough to read, valid JSON to paste back.
  const nlohmann::ordered_json plan = local_plan_json(check.plan);
  out += fmt::format("{{\n  \"device\": {},\n  \"tensors\": [\n", plan["device"].dump());
  for (std::size_t i = 0; i < plan["tensors"].size(); ++i) {
    out += fmt::format("    {}{}\n", plan["tensors"][i].dump(),
                       i + 1 < plan["tensors"].size() ? "," : "");
  }
  out += "  ]";
  if (plan.contains("ops")) {
    out += ",\n  \"ops\": [\n";
    for (std::size_t i = 0; i < plan["ops"].size(); ++i) {
      out +=
          fmt::format("    {}{}\n", plan["ops"][i].dump(), i + 1 < plan["ops"].size() ? "," : "");
    }
    out += "  ]";
  }
  out += "\n}\n";
  return out;
}

}  // namespace tessera::npu
