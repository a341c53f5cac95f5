// tpu-mlir's layer groups (tpu_mlir_plan.h) as tessera local plans, checked with the plans' own
// checks (plan_check.h): each group is one LocalPlan on the module's chip whose tensors are the
// ops' results at their `out_addr` (the largest slice, aligned when `eu_align`, else compact) and
// their scratch buffers, with the timesteps of the group's `flow`. The flow is software-pipelined:
// an op of stage s in timestep t works on slice k at time (k + s) * T + t (T timesteps), so a
// result is alive from its op's time to its last reader's, taken modulo T (every timestep when
// that spans T or more); a buffer only in its op's timestep. A tpu.Store (its result in global
// memory) is no tensor: its placement is the local tensor it reads.
// BM1684 stores 8-bit tensors with eu_align 4N (four batches per 32-bit word): out_size says so
// on every such tensor of the fixtures (docs/notes/2026-11-27-tpu-mlir-plans.md). So overlaps are
// counted only between tensors alive together, bank conflicts between each op's operands and its
// result, and tessera's bytes per NPU (LocalTensor::bytes_reserved_per_npu) stand beside the
// compiler's `out_size`: the two agree on every tensor of the fixtures
// (tests/npu/test_tpu_mlir_plan.cpp, docs/notes/2026-11-27-tpu-mlir-plans.md).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tessera/npu/local_plan.h"
#include "tessera/npu/plan_check.h"
#include "tessera/npu/tpu_mlir_plan.h"

namespace tessera::npu {

struct TpuMlirTensor {
  std::string name;  // the result "%5", or "%5.buffer" for the op's scratch buffer
  std::string op;    // "tpu.Conv2D"
  int64_t line = 0;
  int64_t id = 0;
  int64_t stage = 0;
  bool buffer = false;
  int64_t address = 0;  // out_addr or buffer_addr: bytes into every NPU, from NPU 0
  TensorShape slice{};  // (N*D, C, H, W) of the largest slice; a buffer (1, NPUs, 1, bytes)
  std::string dtype;    // a buffer: u8
  bool eu_align = false;
  std::string mode = "none";       // the storage mode: 4N for BM1684's aligned 8-bit tensors
  int64_t compiler_bytes = 0;      // out_size or buffer_size
  int64_t bytes_per_npu = 0;       // tessera's: whole channel rows, as the compiler reserves them
  int64_t band_bytes = 0;          // LocalTensor's band: to the last stored byte
  int64_t alignment_bytes = 0;     // bytes_per_npu less the same slice laid out compact
  std::vector<int64_t> timesteps;  // alive in these, ascending
};

struct TpuMlirTimestep {
  std::vector<int64_t> ops;     // op ids, as `flow` lists them
  int64_t tensors = 0;          // alive in it
  int64_t used_bytes = 0;       // bytes per NPU inside the bands of the tensors alive
  int64_t highest_byte = 0;     // one past the highest band end
  int64_t alignment_bytes = 0;  // of the tensors alive: what eu_align costs
};

struct TpuMlirGroupCheck {
  int64_t index = 0;  // 0-based, in file order
  int64_t line = 0;
  std::string value;
  int64_t nsecs = 1, csecs = 1, dsecs = 1, hsecs = 1, wsecs = 1, swpipl_stage_num = 1;
  std::vector<TpuMlirTensor> tensors;  // in op order, each result then its buffer
  std::vector<TpuMlirTimestep> timesteps;
  int64_t size_mismatches = 0;  // tensors whose bytes_per_npu != compiler_bytes
  int64_t stores = 0;           // tpu.Store ops (placements of tensors already listed)
  int64_t other_ops = 0;        // ops of the group without a placement (tpu.Yield)
  PlanCheck check;              // overlaps, banks, NPU usage of the group's plan
};

struct TpuMlirPlanCheck {
  std::string chip;
  Device device;
  std::vector<TpuMlirGroupCheck> groups;
  int64_t ops_outside_groups = 0;
  int64_t tensors = 0;
  int64_t placements = 0;  // #tpu.lg read: results, buffers' ops and stores
  int64_t size_mismatches = 0;
  int64_t overlaps = 0;
  int64_t bank_conflicts = 0;
  int64_t not_fitting = 0;
  // No overlap, bank conflict, size mismatch or tensor past local memory (`--check` exits 0).
  bool clean() const;
};

// The group as a tessera local plan on `device` (tensor names as TpuMlirTensor::name).
LocalPlan tpu_mlir_group_plan(const TpuMlirGroup& group, const Device& device);

// Throws Error(kInvalid) for a chip tessera has no preset for, and what LocalTensor refuses
// (an address the layout does not allow, ...) naming the op's line.
TpuMlirPlanCheck check_tpu_mlir_plan(const TpuMlirModule& module,
                                     const PlanCheckOptions& options = {});

// `tessera npu plan MODEL_final.mlir --json`: docs/reference/json/npu-tpu-mlir-plan.schema.json.
nlohmann::ordered_json tpu_mlir_plan_json(const TpuMlirPlanCheck& check);
std::string tpu_mlir_plan_text(const TpuMlirPlanCheck& check);
// One line: "clean" or what keeps it from being clean.
std::string tpu_mlir_plan_summary(const TpuMlirPlanCheck& check);

}  // namespace tessera::npu
