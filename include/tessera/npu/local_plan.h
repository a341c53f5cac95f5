// A local-memory plan: one device and several tensors that share its local memory, plus the ops
// that read and write them. The plan is parsed from JSON; every text field goes through
// the NPU family's own parsers (npu_arguments.h), so a plan refuses what `tessera npu info`
// refuses, with the tensor and field named in front of the same words.
//
// Example plan (the spec's 4-NPU device):
//   {"device": "npus=4,lmem=1024,align=128,banks=4",
//    "tensors": [
//      {"name": "in",  "shape": [1, 6, 2, 8], "dtype": "f32", "address": 0},
//      {"name": "w",   "rows": 2, "cols": 40, "w": 10, "dtype": "f32", "address": "0x100"},
//      {"name": "out", "shape": [1, 6, 2, 8], "dtype": "f32", "address": "auto"}],
//    "ops": [{"name": "conv", "reads": ["in", "w"], "writes": ["out"]}]}
// Optional "timesteps": [["in", "w"], ["w", "out"]], the tensors alive in each timestep (a
// compiler's schedule: tpu_mlir_local_plan.h); tensors are compared only with those alive in a
// timestep with them. Without it every tensor is alive together.
// Tensor fields: name, shape [N,C,H,W] (or "N,C,H,W") or rows/cols/w (w an integer or "best"),
// dtype, layout (aligned, compact, strides=...; default aligned), mode (none, 4N, 2N, 2IC),
// address (integer, "0x..." or "auto"), gdma_row_stride (bool). The device is a preset name,
// "npus=..,lmem=..,align=..[,banks=..]" or an object with those keys.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/npu/device.h"
#include "tessera/npu/local_tensor.h"
#include "tessera/npu/npu_arguments.h"

namespace tessera::npu {

struct PlanTensor {
  std::string name;
  TensorArguments tensor;                 // the tensor form (device text filled in)
  std::optional<MatrixArguments> matrix;  // the matrix form, when rows/cols were given
  bool auto_address = false;              // address "auto": the planner picks it
};

struct PlanOp {
  std::string name;
  std::vector<std::string> reads;
  std::vector<std::string> writes;
};

struct LocalPlan {
  Device device;
  std::string device_text;  // as `tessera npu --device` takes it
  std::vector<PlanTensor> tensors;
  std::vector<PlanOp> ops;
  // The tensors alive in each timestep, by name; empty: one timestep holding every tensor.
  std::vector<std::vector<std::string>> timesteps;
};

// Throws tessera::Error naming the tensor (or op) and the field: unknown or missing fields,
// wrong JSON types, duplicate tensor names, names with control characters or bytes that are not
// UTF-8, ops naming unknown tensors, and every error the NPU
// parsers and LocalTensor give ("tensor 'out', field 'dtype': unknown element type 'f33' ...").
// Fixed addresses are validated here; "auto" tensors are validated at address 0.
LocalPlan parse_local_plan(const nlohmann::json& plan);
// The same from JSON text (Error(kSyntax) with the parser's position when it is not JSON, and
// for a key given twice or a NUL byte: tessera/strict_json.h).
LocalPlan parse_local_plan_text(std::string_view text);
// The same from a regular file of at most kMaxPlanFileBytes (Error(kIo) when it cannot be read:
// tessera/regular_file.h), errors prefixed with "plan 'PATH': ".
inline constexpr int64_t kMaxPlanFileBytes = int64_t{16} << 20;  // far above any checkable plan
LocalPlan read_local_plan(const std::string& path);

// The plan tensor placed at `address` (its own fixed address when nullopt; auto tensors need one).
// For the matrix form this is the aligned tensor (N, ceil(M/W), 1, W) holding the matrix.
LocalTensor make_plan_tensor(const LocalPlan& plan, const PlanTensor& tensor,
                             std::optional<int64_t> address = std::nullopt);

// The plan back as JSON that parse_local_plan reads (addresses as integers, or "auto").
nlohmann::ordered_json local_plan_json(const LocalPlan& plan);

// One `--tensor` spec of `tessera explain npu`: "NAME:key=value:key=value", keys as the JSON
// fields (shape=1,6,2,8, rows=, cols=, w=, dtype=, layout=, mode=, address=). Example:
// "in:shape=1,6,2,8:dtype=f32:address=0". `--op` specs: "conv:reads=in,w:writes=out".
nlohmann::json parse_tensor_spec(std::string_view text);
nlohmann::json parse_op_spec(std::string_view text);

}  // namespace tessera::npu
