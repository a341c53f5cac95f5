#include "tessera/npu/plan_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string>

#include "plan_placement.h"
#include "tessera/checked_arithmetic.h"
#include "tessera/error.h"

namespace tessera::npu {
namespace {

bool fits_with(const LocalTensor& tensor, const TensorShape& shape,
               std::optional<int64_t> max_bytes_per_npu) {
  try {
    const LocalTensor slice(tensor.device(), shape, tensor.element_type(), tensor.address(),
                            tensor.layout(), tensor.storage_mode());
    return slice.fits() &&
           (!max_bytes_per_npu || slice.bytes_reserved_per_npu() <= *max_bytes_per_npu);
  } catch (const Error&) {
    return false;
  }
}

// What two normalized run lists share, without building the list: the plan compares every pair
// on every NPU (up to kMaxPlanComparisons times).
struct Shared {
  int64_t bytes = 0;
  int64_t first = 0;  // the lowest shared byte (when bytes > 0)
  int64_t end = 0;    // one past the highest
};

// `steps` counts the runs walked (the check's work budget).
Shared shared_bytes(const ByteRuns& a, const ByteRuns& b, int64_t& steps) {
  Shared shared;
  // Runs that cannot meet (the common case in a sound plan) cost nothing to compare.
  if (a.empty() || b.empty() || a.back().end <= b.front().begin ||
      b.back().end <= a.front().begin) {
    return shared;
  }
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < a.size() && j < b.size()) {
    const int64_t begin = std::max(a[i].begin, b[j].begin);
    const int64_t end = std::min(a[i].end, b[j].end);
    if (begin < end) {
      if (shared.bytes == 0) shared.first = begin;
      shared.bytes += end - begin;
      shared.end = end;
    }
    (a[i].end < b[j].end ? i : j) += 1;
  }
  steps += static_cast<int64_t>(i + j);
  return shared;
}

// One entry for the pair over all NPUs; the elements are looked up only for listed entries.
void compare_pair(const PlannedTensor& a, const PlannedTensor& b, PlanCheck& check) {
  const int64_t npus = a.tensor->device().npus;
  PlanOverlap overlap{a.name, b.name, 0, 0, 0, 0, {}, 0, {}, {}};
  for (int64_t q = 0; q < npus; ++q) {
    const auto u = static_cast<std::size_t>(q);
    const Shared shared = shared_bytes(a.runs[u], b.runs[u], check.run_steps);
    if (shared.bytes == 0) continue;
    if (overlap.npus++ == 0) {
      overlap.first_npu = q;
      overlap.first_byte = shared.first;
      overlap.byte_range = {shared.first, shared.end};
    }
    overlap.last_npu = q;
    overlap.bytes += shared.bytes;
    overlap.byte_range = {std::min(overlap.byte_range.begin, shared.first),
                          std::max(overlap.byte_range.end, shared.end)};
  }
  if (overlap.npus > 0) {
    if (check.counts.overlaps++ < check.max_listed) {
      overlap.a_element = element_at_byte(*a.tensor, overlap.first_npu, overlap.first_byte);
      overlap.b_element = element_at_byte(*b.tensor, overlap.first_npu, overlap.first_byte);
      check.overlaps.push_back(std::move(overlap));
    }
    return;
  }
  // No byte in common: does either store bytes inside the other's band?
  for (const auto& [inner, outer] : {std::pair{&a, &b}, std::pair{&b, &a}}) {
    const int64_t begin = outer->tensor->start().offset;
    const ByteRuns band{{begin, begin + outer->bytes_per_npu}};
    std::optional<int64_t> first_npu;
    int64_t bytes = 0;
    for (int64_t q = 0; q < npus; ++q) {
      const int64_t inside =
          shared_bytes(inner->runs[static_cast<std::size_t>(q)], band, check.run_steps).bytes;
      if (inside == 0) continue;
      if (!first_npu) first_npu = q;
      bytes += inside;
    }
    if (first_npu && check.counts.empty_block_reuse++ < check.max_listed) {
      check.empty_block_reuse.push_back({inner->name, outer->name, *first_npu, bytes});
    }
  }
}

// Per op, each tensor it reads against each it writes: the banks they share on some NPU.
void compare_banks(PlanCheck& check) {
  const auto find = [&](const std::string& name) -> const PlannedTensor& {
    return *std::find_if(check.tensors.begin(), check.tensors.end(),
                         [&](const PlannedTensor& t) { return t.name == name; });
  };
  for (const PlanOp& op : check.plan.ops) {
    for (const std::string& read : op.reads) {
      for (const std::string& written : op.writes) {
        const PlannedTensor& a = find(read);
        const PlannedTensor& b = find(written);
        if (read == written || !a.fits || !b.fits) continue;
        std::set<int64_t> banks;
        PlanBankConflict conflict{op.name, read, written, {}, 0, 0};
        for (std::size_t q = 0; q < a.banks.size(); ++q) {
          std::vector<int64_t> common;
          std::set_intersection(a.banks[q].begin(), a.banks[q].end(), b.banks[q].begin(),
                                b.banks[q].end(), std::back_inserter(common));
          if (common.empty()) continue;
          if (conflict.npus++ == 0) conflict.first_npu = static_cast<int64_t>(q);
          banks.insert(common.begin(), common.end());
        }
        if (conflict.npus > 0 && check.counts.bank_conflicts++ < check.max_listed) {
          conflict.banks.assign(banks.begin(), banks.end());
          check.bank_conflicts.push_back(std::move(conflict));
        }
      }
    }
  }
}

// kMaxPlanComparisons, before any work.
void check_plan_size(const LocalPlan& plan) {
  const auto tensors = static_cast<int64_t>(plan.tensors.size());
  const int64_t tensor_pairs = tensors * (tensors - 1) / 2;  // tensors < 2^31: a plan is text
  int64_t op_pairs = 0;
  for (const PlanOp& op : plan.ops) {
    op_pairs += static_cast<int64_t>(op.reads.size()) * static_cast<int64_t>(op.writes.size());
  }
  const int64_t banks = plan.device.banks > 1 ? plan.device.banks : 0;
  const int64_t per_npu =
      checked_add(tensor_pairs, checked_multiply(op_pairs, banks, "op pairs"), "comparisons");
  if (per_npu > kMaxPlanComparisons / plan.device.npus) {
    const std::string ops =
        banks > 0 && op_pairs > 0
            ? fmt::format(" and {} op read/write pairs on {} banks", op_pairs, banks)
            : "";
    throw Error(ErrorKind::kUnsupported,
                fmt::format("the plan compares {} tensor pairs{} on each of {} NPUs: {} "
                            "comparisons; tessera checks plans of at most {} (split the plan)",
                            tensor_pairs, ops, plan.device.npus,
                            static_cast<double>(per_npu) * static_cast<double>(plan.device.npus),
                            kMaxPlanComparisons));
  }
}

// Per tensor, the timesteps it is alive in (ascending); empty lists when the plan has none.
std::vector<std::vector<int64_t>> alive_timesteps(const LocalPlan& plan) {
  std::vector<std::vector<int64_t>> alive(plan.tensors.size());
  for (std::size_t step = 0; step < plan.timesteps.size(); ++step) {
    for (const std::string& name : plan.timesteps[step]) {
      const auto it = std::find_if(plan.tensors.begin(), plan.tensors.end(),
                                   [&](const PlanTensor& t) { return t.name == name; });
      if (it == plan.tensors.end()) continue;  // parse_local_plan refuses it
      auto& steps = alive[static_cast<std::size_t>(it - plan.tensors.begin())];
      if (steps.empty() || steps.back() != static_cast<int64_t>(step)) {
        steps.push_back(static_cast<int64_t>(step));
      }
    }
  }
  return alive;
}

// Whether two tensors are alive in a common timestep; `steps` counts the work like byte runs.
bool alive_together(const std::vector<int64_t>& a, const std::vector<int64_t>& b, int64_t& steps) {
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i] == b[j]) break;
    (a[i] < b[j] ? i : j) += 1;
  }
  steps += static_cast<int64_t>(i + j);
  return i < a.size() && j < b.size();
}

}  // namespace

bool PlanCheck::clean() const {
  return counts.overlaps == 0 && counts.bank_conflicts == 0 && counts.not_placed == 0 &&
         counts.not_fitting == 0;
}

std::optional<std::vector<int64_t>> element_at_byte(const LocalTensor& tensor, int64_t npu,
                                                    int64_t byte) {
  try {
    const int64_t address = npu * tensor.device().local_memory_bytes + byte;
    return tensor.index_map().logical_index(address / tensor.element_bytes());
  } catch (const Error&) {
    return std::nullopt;  // a map tessera cannot build (interleaved strides on a huge tensor)
  }
}

std::vector<PlanSlice> smallest_slices(const LocalTensor& tensor,
                                       std::optional<int64_t> max_bytes_per_npu) {
  std::vector<PlanSlice> slices;
  if (fits_with(tensor, tensor.shape(), max_bytes_per_npu)) return slices;
  constexpr char kDims[4] = {'N', 'C', 'H', 'W'};
  for (int axis = 0; axis < 4; ++axis) {
    const int64_t extent = tensor.shape()[axis];
    if (extent < 2) continue;
    const auto shape_for = [&](int64_t count) {
      TensorShape shape = tensor.shape();
      shape[axis] = (extent + count - 1) / count;
      return shape;
    };
    const auto fits = [&](int64_t count) {
      return fits_with(tensor, shape_for(count), max_bytes_per_npu);
    };
    if (!fits(extent)) continue;  // even one value per slice is too big
    // Fitting only gets easier as the slice shrinks, so the fewest slices is a binary search.
    int64_t low = 1;  // does not fit
    int64_t high = extent;
    while (high - low > 1) {
      const int64_t mid = low + (high - low) / 2;
      (fits(mid) ? high : low) = mid;
    }
    const TensorShape shape = shape_for(high);
    const LocalTensor slice(tensor.device(), shape, tensor.element_type(), tensor.address(),
                            tensor.layout(), tensor.storage_mode());
    slices.push_back({kDims[axis], high, shape, slice.bytes_reserved_per_npu()});
  }
  return slices;
}

PlanCheck check_local_plan(const LocalPlan& plan, const PlanCheckOptions& options) {
  if (options.max_listed < 0 || options.max_listed > kMaxListedFindings) {
    throw Error(ErrorKind::kOutOfRange,
                fmt::format("the findings listed per kind (--max-overlaps) must be 0..{}, not {}",
                            kMaxListedFindings, options.max_listed));
  }
  check_plan_size(plan);
  PlanCheck check;
  check.max_listed = options.max_listed;
  int64_t byte_runs = 0;
  std::vector<detail::AutoPlacement> placements;
  check.plan = detail::place_auto_tensors(plan, placements);
  const Device& device = plan.device;
  for (std::size_t i = 0; i < check.plan.tensors.size(); ++i) {
    const PlanTensor& spec = check.plan.tensors[i];
    PlannedTensor t;
    t.name = spec.name;
    t.placement = placements[i].explanation;
    t.free_band = placements[i].free_band;
    const LocalTensor tensor = spec.auto_address ? make_plan_tensor(check.plan, spec, 0)
                                                 : make_plan_tensor(check.plan, spec);
    if (spec.matrix) {
      t.best_width = plan.tensors[i].matrix->best_width;
      if (spec.matrix->width) t.matrix_width = parse_address(*spec.matrix->width, "w");
    }
    t.bytes_per_npu = tensor.bytes_reserved_per_npu();
    t.fits = !spec.auto_address && tensor.fits();
    if (t.fits) {
      t.runs = stored_byte_runs(tensor);
      for (const ByteRuns& runs : t.runs) byte_runs += static_cast<int64_t>(runs.size());
      if (byte_runs > kMaxPlanByteRuns) {
        throw Error(ErrorKind::kUnsupported,
                    fmt::format("the plan's tensors up to '{}' store {} byte runs together; "
                                "tessera checks plans of at most {} (split the plan)",
                                spec.name, byte_runs, kMaxPlanByteRuns));
      }
      for (const ByteRuns& runs : t.runs) t.banks.push_back(banks_of(runs, device.bank_bytes()));
    } else {
      // Not placed: slices that fit the longest free band; not fitting: local memory.
      t.slices = smallest_slices(tensor, t.free_band);
      ++(spec.auto_address ? check.counts.not_placed : check.counts.not_fitting);
    }
    if (!spec.auto_address) t.tensor = tensor;
    check.tensors.push_back(std::move(t));
  }
  // With timesteps, only tensors alive together can collide: a compiler reuses memory over time.
  const std::vector<std::vector<int64_t>> alive = alive_timesteps(check.plan);
  for (std::size_t i = 0; i < check.tensors.size(); ++i) {
    for (std::size_t j = i + 1; j < check.tensors.size(); ++j) {
      if (!check.plan.timesteps.empty() && !alive_together(alive[i], alive[j], check.run_steps)) {
        continue;
      }
      if (check.tensors[i].fits && check.tensors[j].fits) {
        compare_pair(check.tensors[i], check.tensors[j], check);
      }
    }
    if (check.run_steps > options.max_run_steps) {
      throw Error(ErrorKind::kUnsupported,
                  fmt::format("the plan's tensors overlap so much that comparing them walks more "
                              "than {} byte runs ({} tensors storing {} runs); tessera stops "
                              "there: split the plan",
                              options.max_run_steps, check.tensors.size(), byte_runs));
    }
  }
  if (device.banks > 1) compare_banks(check);
  for (int64_t q = 0; q < device.npus; ++q) {
    // All tensors' runs at once: merging one tensor at a time grew quadratic with disjoint ones.
    ByteRuns all;
    for (const PlannedTensor& t : check.tensors) {
      if (t.fits) {
        const ByteRuns& runs = t.runs[static_cast<std::size_t>(q)];
        all.insert(all.end(), runs.begin(), runs.end());
      }
    }
    const ByteRuns used = normalize_runs(std::move(all));
    PlanNpuUsage usage{q, total_bytes(used), 0, 0};
    usage.free_bytes = device.local_memory_bytes - usage.used_bytes;
    for (const ByteRun& run : complement_runs(used, 0, device.local_memory_bytes)) {
      usage.largest_free_run = std::max(usage.largest_free_run, run.size());
    }
    check.npus.push_back(usage);
  }
  return check;
}

}  // namespace tessera::npu
