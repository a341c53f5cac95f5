// A local-memory plan file, read and checked once for the three commands that take one:
// `npu plan FILE`, `explain npu --plan FILE` (its report) and `draw npu --plan FILE` (its
// picture). FILE is a JSON plan (tessera/npu/local_plan.h) or tpu-mlir's *_final.mlir
// (tessera/npu/tpu_mlir_local_plan.h); the library decides which.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include "tessera/npu/plan_check.h"
#include "tessera/npu/tpu_mlir_local_plan.h"

namespace tessera::cli {

struct CheckedPlanFile {
  std::variant<npu::PlanCheck, npu::TpuMlirPlanCheck> check;
  bool clean() const;
  std::string text() const;     // the report as text
  std::string json() const;     // the report as one JSON object, with a newline
  std::string summary() const;  // one line: what --check reports when the plan is not clean
  // The picture of local memory over the plan's tensors (timesteps for tpu-mlir's plans), by
  // the path's extension (.svg, .html).
  void write_picture(const std::string& path) const;
};

// Lists (overlaps, empty-block reuses, bank conflicts) stop at `max_listed`; counts stay whole.
CheckedPlanFile check_plan_file(const std::string& file, int64_t max_listed);

}  // namespace tessera::cli
