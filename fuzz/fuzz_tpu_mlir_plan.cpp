// Fuzzes the reader of tpu-mlir's `*_final.mlir` (`tessera npu plan MODEL_final.mlir`,
// `tessera.npu.Plan`) and the check built on it: any text must be refused with tessera::Error or
// give layer groups whose check, JSON and text reports are built without a crash, with printable
// text and every list within its bound.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tessera/error.h"
#include "tessera/npu/tpu_mlir_local_plan.h"
#include "tessera/npu/tpu_mlir_plan.h"
#include "tessera/render/tpu_mlir_plan_picture.h"
#include "tessera/utf8_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size > 16384) return 0;  // bounded work per input: a group compares every pair of tensors
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const tessera::npu::TpuMlirModule module = tessera::npu::parse_tpu_mlir_plan(text);
    const tessera::npu::TpuMlirPlanCheck check =
        tessera::npu::check_tpu_mlir_plan(module, {.max_listed = 3});
    tessera::npu::tpu_mlir_plan_json(check).dump();  // throws on text that is not UTF-8
    const std::string report = tessera::npu::tpu_mlir_plan_text(check);
    if (tessera::printable_lines(report) != report) __builtin_trap();
    for (const auto& group : check.groups) {
      if (group.check.overlaps.size() > 3 || group.check.bank_conflicts.size() > 3) {
        __builtin_trap();
      }
    }
    tessera::render::build_tpu_mlir_plan_picture(check);
  } catch (const tessera::Error&) {
  }
  return 0;
}
