#include "plan_placement.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>
#include <optional>
#include <set>

#include "tessera/checked_arithmetic.h"
#include "tessera/error.h"
#include "tessera/npu/byte_runs.h"

namespace tessera::npu::detail {
namespace {

// The offsets LocalTensor accepts (local_tensor.cpp check_address): a multiple of the device
// alignment (aligned) or of 4 (compact), of the element size, and of 4 with a storage mode.
int64_t offset_step(const LocalTensor& tensor) {
  const LayoutKind kind = tensor.layout().kind;
  int64_t step = kind == LayoutKind::kAligned   ? tensor.device().alignment_bytes
                 : kind == LayoutKind::kCompact ? 4
                                                : 1;
  step = std::lcm(step, tensor.element_bytes());
  if (tensor.storage_mode() != StorageMode::kNone) step = std::lcm(step, int64_t{4});
  return step;
}

// The band [R, R + reserved) a tensor takes in every NPU, clipped to local memory.
ByteRun band(const LocalTensor& tensor) {
  const int64_t begin = tensor.start().offset;
  return {begin,
          std::min(begin + tensor.bytes_reserved_per_npu(), tensor.device().local_memory_bytes)};
}

std::set<int64_t> banks_of_band(const ByteRun& run, int64_t bank_bytes) {
  const std::vector<int64_t> banks = banks_of({run}, bank_bytes);
  return {banks.begin(), banks.end()};
}

// The tensors on the other side of an op from `name`: its writes if it is read, and reverse.
std::set<std::string> op_partners(const LocalPlan& plan, const std::string& name) {
  std::set<std::string> partners;
  for (const PlanOp& op : plan.ops) {
    const auto has = [&](const std::vector<std::string>& list) {
      return std::find(list.begin(), list.end(), name) != list.end();
    };
    if (has(op.reads)) partners.insert(op.writes.begin(), op.writes.end());
    if (has(op.writes)) partners.insert(op.reads.begin(), op.reads.end());
  }
  partners.erase(name);
  return partners;
}

// Fixes a matrix's "best" width at `address` so that the band no longer depends on it, and the
// plan printed back says the number.
void fix_best_width(PlanTensor& tensor, const std::string& address) {
  if (!tensor.matrix || !tensor.matrix->best_width) return;
  MatrixArguments m = *tensor.matrix;
  m.address = address;
  const int64_t width = make_matrix_layout(m).width();
  tensor.matrix->best_width = false;
  tensor.matrix->width = std::to_string(width);
}

}  // namespace

LocalPlan place_auto_tensors(const LocalPlan& plan, std::vector<AutoPlacement>& placements) {
  LocalPlan out = plan;
  const Device& device = plan.device;
  const int64_t bank_bytes = device.bank_bytes();
  placements.assign(plan.tensors.size(), {});
  for (PlanTensor& t : out.tensors) {
    if (!t.auto_address) fix_best_width(t, t.tensor.address);
  }
  // Bands of the fixed tensors: they are taken in every NPU, so one list serves all NPUs.
  std::vector<std::pair<std::string, ByteRun>> taken;
  // A fixed tensor that does not fit is not in local memory as written (it gets slices).
  for (const PlanTensor& t : plan.tensors) {
    if (t.auto_address) continue;
    const LocalTensor tensor = make_plan_tensor(plan, t);
    if (tensor.fits()) taken.emplace_back(t.name, band(tensor));
  }
  for (std::size_t i = 0; i < out.tensors.size(); ++i) {
    PlanTensor& t = out.tensors[i];
    if (!t.auto_address) continue;
    // Start NPU 0: channels per NPU ceil((Q + C) / X) only grow with Q (spec "Scatter Features
    // to Different NPUs"), so no other start gives a narrower band, and bands take every NPU.
    const int64_t best_npu = 0;
    fix_best_width(t, "0");
    const LocalTensor probe = make_plan_tensor(plan, t, 0);
    const int64_t best_bytes = probe.bytes_reserved_per_npu();
    const int64_t step = offset_step(probe);
    ByteRuns taken_runs;
    for (const auto& entry : taken) taken_runs.push_back(entry.second);
    const ByteRuns free_runs =
        complement_runs(normalize_runs(taken_runs), 0, device.local_memory_bytes);
    std::set<int64_t> avoid;
    std::vector<std::string> avoided;
    const std::set<std::string> partners = op_partners(plan, t.name);
    for (const auto& [name, run] : taken) {
      if (!partners.contains(name) || device.banks == 1) continue;
      const auto banks = banks_of_band(run, bank_bytes);
      avoid.insert(banks.begin(), banks.end());
      avoided.push_back(name);
    }
    // Candidates: the first aligned offset of each free run and every bank start inside it.
    std::optional<int64_t> first_fit;
    std::optional<int64_t> bank_fit;
    int64_t free_band = 0;  // the longest band any aligned start offset has
    for (const ByteRun& free : free_runs) {
      free_band = std::max(free_band,
                           free.end - std::min(free.end, round_up(free.begin, step, "an offset")));
      std::vector<int64_t> starts{round_up(free.begin, step, "an offset")};
      if (!avoid.empty() && device.banks <= 4096) {
        for (int64_t b = free.begin / bank_bytes + 1; b * bank_bytes < free.end; ++b) {
          starts.push_back(round_up(b * bank_bytes, step, "an offset"));
        }
      }
      for (int64_t r : starts) {
        if (r + best_bytes > free.end) continue;
        if (!first_fit) first_fit = r;
        if (bank_fit) break;
        const auto banks = banks_of_band({r, r + best_bytes}, bank_bytes);
        if (std::none_of(banks.begin(), banks.end(),
                         [&](int64_t bank) { return avoid.contains(bank); })) {
          bank_fit = r;
        }
      }
      if (bank_fit) break;
    }
    const std::string npu_reason = fmt::format(
        "start NPU {} gives the narrowest band ({} bytes per NPU: channels per NPU grow with the "
        "start NPU)",
        best_npu, best_bytes);
    if (!first_fit) {
      placements[i].free_band = free_band;
      placements[i].explanation = fmt::format(
          "not placed: {}, but the longest free band is {} bytes (offsets multiple of {})",
          npu_reason, free_band, step);
      continue;
    }
    const int64_t offset = avoid.empty() ? *first_fit : bank_fit.value_or(*first_fit);
    const int64_t address = best_npu * device.local_memory_bytes + offset;
    std::string why = fmt::format(
        "{}; offset {} is the lowest multiple of {} whose band [{}, {}) "
        "meets no other tensor's band",
        npu_reason, offset, step, offset, offset + best_bytes);
    if (!avoid.empty()) {
      why += bank_fit ? fmt::format(" and no bank of {} (same op)", fmt::join(avoided, ", "))
                      : fmt::format("; no offset keeps it out of the banks of {} (same op)",
                                    fmt::join(avoided, ", "));
    }
    placements[i].explanation = why;
    t.auto_address = false;
    t.tensor.address = std::to_string(address);
    if (t.matrix) t.matrix->address = t.tensor.address;
    taken.emplace_back(t.name, band(make_plan_tensor(out, t)));
  }
  return out;
}

}  // namespace tessera::npu::detail
