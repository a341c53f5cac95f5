// Checking a local-memory plan exactly to the byte, from the bytes each tensor really
// stores (byte_runs.h) rather than from address ranges:
// - overlaps: two tensors storing a byte in common, with the NPUs and bytes they share and the
//   element of each at the first colliding byte (nullopt: a 4N/2N/2IC dummy);
// - empty-block reuse: a tensor that stores no byte of another but stores bytes inside the
//   other's band [R, R + reserved) — its empty channel-row blocks and alignment gaps, which
//   footprint.h counts as taken in every NPU. The spec warns: "If reusing the empty blocks to
//   store some other tensors, it should be much careful ... the data in these tensors may be
//   destroyed when NPUs work parallel. Try not to reuse the empty blocks.";
// - banks: the banks each tensor touches per NPU, and per op every (read, write) pair that shares
//   a bank of one NPU (only on devices with more than one bank);
// - per NPU: bytes stored by some tensor, free bytes, the largest free run.
// Tensors that do not fit are left out of these comparisons and get `slices` instead. With
// timesteps (local_plan.h) two tensors are compared only when alive in a common timestep. Findings
// are grouped per tensor pair (overlaps, empty-block reuse) or per op and pair (banks), counted
// whole and listed up to a bound, so a report's size does not grow with the NPUs.
//
// "auto" addresses are placed first, in plan order: start NPU 0 (channels per NPU, and so the
// band, only grow with the start NPU), then the lowest offset, a multiple of what the layout
// requires, whose band meets no other band (so no overlap and no empty-block reuse); where ops are
// given, an offset whose banks are not those of the tensors on the other side of the op is
// preferred when one fits.
//
// Example (X=4, S=1024, align 128): f32 (1,6,1,8) aligned at 0 stores [0,32) and [128,160) on
// NPUs 0 and 1, [0,32) on NPUs 2 and 3 (band 160 bytes); f32 (1,1,1,8) at 2048+128 = NPU 2,
// offset 128 stores no byte of it but lies in its band: empty-block reuse, not an overlap.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tessera/npu/byte_runs.h"
#include "tessera/npu/local_plan.h"

namespace tessera::npu {

struct PlanSlice {
  char dim = 'N';  // N, C, H or W
  int64_t count = 0;
  TensorShape shape{};        // one slice (the first, largest one)
  int64_t bytes_per_npu = 0;  // its band per NPU
};

struct PlannedTensor {
  std::string name;
  std::optional<LocalTensor> tensor;  // nullopt: an auto tensor that no free band could hold
  bool fits = false;
  int64_t bytes_per_npu = 0;   // the band per NPU (LocalTensor::bytes_reserved_per_npu)
  std::vector<ByteRuns> runs;  // per NPU; empty unless it fits
  std::vector<std::vector<int64_t>> banks;  // per NPU; empty unless it fits
  std::vector<PlanSlice> slices;            // when it does not fit: per dim, the fewest slices
  std::string placement;                    // auto tensors: why this address, or why none
  std::optional<int64_t> free_band;     // auto tensors not placed: the longest band free anywhere
  std::optional<int64_t> matrix_width;  // the matrix form: W (the one chosen for "best")
  bool best_width = false;              // the plan said "w": "best"
};

// Two tensors that store bytes in common, over every NPU: one entry per pair, never one per NPU
// (362 tensors at address 0 on 64 NPUs made 4.2 million NPU-level entries, 385 MB of
// JSON and an abort).
struct PlanOverlap {
  std::string a, b;
  int64_t npus = 0;  // NPUs where the two share bytes
  int64_t first_npu = 0;
  int64_t last_npu = 0;
  int64_t bytes = 0;       // shared bytes over all NPUs
  ByteRun byte_range;      // offsets inside an NPU: the lowest shared byte on any NPU, one past
                           // the highest
  int64_t first_byte = 0;  // the first shared byte on first_npu, where the elements are read
  std::optional<std::vector<int64_t>> a_element, b_element;
};

struct PlanEmptyBlockReuse {
  std::string tensor, inside;
  int64_t npu = 0;    // the first NPU where it happens
  int64_t bytes = 0;  // bytes of `tensor` inside the band of `inside`, over all NPUs
};

// An op reading `a` and writing `b` whose stored bytes share banks, over every NPU.
struct PlanBankConflict {
  std::string op, a, b;
  std::vector<int64_t> banks;  // shared on some NPU, ascending
  int64_t npus = 0;            // NPUs where they share a bank
  int64_t first_npu = 0;
};

struct PlanNpuUsage {
  int64_t npu = 0;
  int64_t used_bytes = 0;
  int64_t free_bytes = 0;
  int64_t largest_free_run = 0;
};

// How many findings of each kind the plan has; the lists hold at most max_listed of each.
struct PlanCounts {
  int64_t overlaps = 0;           // tensor pairs
  int64_t empty_block_reuse = 0;  // (tensor, inside) pairs
  int64_t bank_conflicts = 0;     // (op, read, write) triples
  int64_t not_placed = 0;         // auto tensors no free band could hold
  int64_t not_fitting = 0;        // tensors at a fixed address that run past local memory
};

struct PlanCheck {
  LocalPlan plan;  // with auto addresses and "best" widths replaced by the chosen ones
  std::vector<PlannedTensor> tensors;
  std::vector<PlanOverlap> overlaps;  // the first max_listed pairs, in plan order
  std::vector<PlanEmptyBlockReuse> empty_block_reuse;
  std::vector<PlanBankConflict> bank_conflicts;
  std::vector<PlanNpuUsage> npus;
  PlanCounts counts;
  int64_t max_listed = 0;
  int64_t run_steps = 0;  // byte runs walked comparing tensors (bounded by kMaxPlanRunSteps)
  // No overlap, bank conflict, unplaced or unfitting tensor (`npu plan --check` exits 0).
  // Empty-block reuse is allowed, with the spec's warning.
  bool clean() const;
};

struct PlanCheckOptions {
  // Findings listed per kind (the counts are always whole): bounds the report's size and the
  // memory for it, whatever the plan. At most kMaxListedFindings.
  int64_t max_listed = 100;
  // Byte runs walked comparing tensors before the plan is refused (kMaxPlanRunSteps; tests give
  // less).
  int64_t max_run_steps = int64_t{1} << 28;
};
inline constexpr int64_t kMaxListedFindings = 100000;

// Bounds on one plan's check, so that its time and memory are bounded by design: a 28 KB plan
// of 300 one-element tensors on 65536 NPUs took 68 s and 3.7 GB before them. Plans beyond them
// are refused (Error(kUnsupported)), naming the count; split such a plan.
// - (tensor pairs + op read/write pairs x banks) x NPUs: every pair of tensors is compared on
//   every NPU, every op pair per bank. 64 NPUs: 362 tensors without ops;
// - the byte runs (byte_runs.h) of all tensors together: 16 bytes each;
// - the runs walked comparing tensors whose stored bytes come near each other (runs that cannot
//   meet are not walked): 362 tensors of 64 runs per NPU, all at address 0 on a BM1684, walk
//   535 million and took 3.3 s; such a plan is refused as it reaches the bound.
inline constexpr int64_t kMaxPlanComparisons = int64_t{1} << 22;
inline constexpr int64_t kMaxPlanByteRuns = int64_t{1} << 24;
inline constexpr int64_t kMaxPlanRunSteps = PlanCheckOptions{}.max_run_steps;

// Throws Error(kOutOfRange) for max_listed outside 0..kMaxListedFindings.
PlanCheck check_local_plan(const LocalPlan& plan, const PlanCheckOptions& options = {});

// The element whose bytes include byte `byte` of NPU `npu` (the tensor fits); nullopt for a
// 4N/2N/2IC dummy or a byte the tensor does not store.
std::optional<std::vector<int64_t>> element_at_byte(const LocalTensor& tensor, int64_t npu,
                                                    int64_t byte);

// For each of N, C, H, W with more than one value: the fewest slices along it whose first slice
// fits local memory at the tensor's start offset, and within `max_bytes_per_npu` when given (the
// free band an auto tensor could not get); a dim where even one value does not fit is left out.
// Example (X=4, S=1024, align 128): f32 (8,4,1,32) aligned at 0 needs 8*128 = 1024 bytes per NPU
// and fits; (16,4,1,32) needs 2048 -> N: 2 slices of (8,4,1,32), W: 2 of (16,4,1,16)...
std::vector<PlanSlice> smallest_slices(const LocalTensor& tensor,
                                       std::optional<int64_t> max_bytes_per_npu = std::nullopt);

// `tessera npu plan --json`: the keys are described in docs/reference/json/npu-plan.schema.json;
// `plan` is the plan with auto addresses filled in, ready to pass back.
nlohmann::ordered_json plan_check_json(const PlanCheck& check);
std::string plan_check_text(const PlanCheck& check);
// One line: "clean", "clean (2 empty-block reuse warnings)" or what keeps it from being clean,
// "3 overlapping tensor pairs, 1 auto tensor not placed".
std::string plan_check_summary(const PlanCheck& check);

}  // namespace tessera::npu
