// The local-memory plans tpu-mlir, Sophgo's compiler, makes: read from the `*_final.mlir` file
// `model_deploy.py --debug` writes (fixtures and the script that makes them:
// tests/fixtures/tpu_mlir_plans/, tools/npu_oracle/tpu_mlir_plans.sh).
//
// A layer group is one `tpu.Group` op; every op inside it carries its placement in local memory:
//   %5 = "tpu.Conv2D"(%3, %4, ...) {ginfo = #tpu.lg<out_addr = 0, out_size = 35456,
//        buffer_addr = 0, buffer_size = 0, eu_align = true, n_idx = [0], n_slice = [1], ...,
//        h_idx = [0, 53], h_slice = [54, 55], ..., id = 6, stage = 1, group_type = 0>, ...}
//        : (tensor<...>, ...) -> tensor<1x64x112x112xf32> loc(#loc3)
// and the group itself its timesteps and slicing, on the line that closes its region:
//   }) {flow = [-1, 0, -2, 1, 2, -3, 3], group_type = 0 : i64, hsecs = 2 : i64, nsecs = 1 : i64,
//       swpipl_stage_num = 3 : i64, ...} : (...) -> ...
// In `flow`, -k opens timestep k-1 and the ids after it are the ops (their `id`) run in it.
// The reader is line-based, strict about what it uses and bounded: a malformed line or field
// gets Error(kSyntax) naming the line and the field, never a crash; other lines are ignored
// (ops outside groups are only counted).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::npu {

// The fields of one `#tpu.lg<...>` (offsets and sizes are bytes per NPU). The slice lists hold
// one entry per slice along that dim.
struct TpuMlirLocalInfo {
  int64_t out_addr = 0;
  int64_t out_size = 0;
  int64_t buffer_addr = 0;
  int64_t buffer_size = 0;
  bool eu_align = false;
  std::vector<int64_t> n_idx, n_slice, c_idx, c_slice, d_idx, d_slice, h_idx, h_slice, w_idx,
      w_slice;
  int64_t id = 0;
  int64_t stage = 0;
  int64_t group_type = 0;
};

struct TpuMlirGroupOp {
  int64_t line = 0;                   // 1-based line in the file
  std::string value;                  // the result's name, "%5" (empty when it has none)
  std::string op;                     // "tpu.Conv2D"
  std::vector<std::string> operands;  // "%3", ...
  std::vector<int64_t> shape;         // the result tensor's shape
  std::string dtype;                  // its element type as tessera names it: f32, f16, s8, ...
  // The result type carries a global-memory address: a tpu.Store, whose placement is the local
  // tensor it stores.
  bool global_result = false;
  TpuMlirLocalInfo info;
};

struct TpuMlirGroup {
  int64_t line = 0;   // the `tpu.Group` line
  std::string value;  // "%7"
  std::vector<TpuMlirGroupOp> ops;
  std::vector<std::vector<int64_t>> flow;  // per timestep, the op ids run in it
  int64_t nsecs = 1, csecs = 1, dsecs = 1, hsecs = 1, wsecs = 1;
  int64_t swpipl_stage_num = 1;
  int64_t other_ops = 0;  // ops in the group without a placement (tpu.Yield, ...)
};

struct TpuMlirModule {
  std::string chip;  // lower case, as the module says: "bm1684x"
  std::vector<TpuMlirGroup> groups;
  int64_t ops_outside_groups = 0;  // tpu/top ops between groups: global memory, not planned here
};

inline constexpr int64_t kMaxTpuMlirPlanBytes = int64_t{64} << 20;

// Whether `text` looks like tpu-mlir's output (an MLIR module naming tpu ops), not a JSON plan.
bool looks_like_tpu_mlir(std::string_view text);

// Whether `tessera npu plan PATH` reads PATH as tpu-mlir's output rather than a JSON plan: its
// name ends in ".mlir", or it is a file a JSON plan could be (local_plan.h's size limit) that
// looks_like_tpu_mlir. A file that cannot be read is left to the JSON reader's error.
bool is_tpu_mlir_plan_file(const std::string& path);

// Throws Error(kSyntax) "line N: field 'F': ..." for a malformed group or placement, and
// Error(kInvalid) for a module without a chip, a group without `flow`, a flow naming an op id the
// group does not have, or two ops of a group with the same id.
TpuMlirModule parse_tpu_mlir_plan(std::string_view text);
// The same from a regular file of at most kMaxTpuMlirPlanBytes, errors prefixed with
// "tpu-mlir plan 'PATH': ".
TpuMlirModule read_tpu_mlir_plan(const std::string& path);

}  // namespace tessera::npu
