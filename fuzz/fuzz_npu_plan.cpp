// Fuzzes the NPU local-memory plan reader (`tessera npu plan FILE`, `tessera.npu.Plan`) and the
// check built on it, and the `--tensor`/`--op` specs of `tessera explain npu`: any text must be
// refused with tessera::Error or give a plan whose check, JSON and text reports are built
// without a crash, and whose JSON form reads back to the same plan.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tessera/error.h"
#include "tessera/npu/local_plan.h"
#include "tessera/npu/plan_check.h"
#include "tessera/utf8_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size > 4096) return 0;  // bounded work per input: a check compares every pair of tensors
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    tessera::npu::parse_tensor_spec(text);
  } catch (const tessera::Error&) {
  }
  try {
    tessera::npu::parse_op_spec(text);
  } catch (const tessera::Error&) {
  }
  tessera::npu::LocalPlan plan;
  try {
    plan = tessera::npu::parse_local_plan_text(text);
  } catch (const tessera::Error&) {
    return 0;
  }
  // Written back, the plan reads as itself.
  const auto json = tessera::npu::local_plan_json(plan);
  const auto again = tessera::npu::parse_local_plan(nlohmann::json::parse(json.dump()));
  if (tessera::npu::local_plan_json(again) != json) __builtin_trap();
  try {
    const tessera::npu::PlanCheck check = tessera::npu::check_local_plan(plan, {.max_listed = 3});
    tessera::npu::plan_check_json(check).dump();  // throws on text that is not UTF-8
    // The report prints as it is (names with control characters broke pictures), and
    // its lists stay within the bound whatever the plan.
    const std::string text = tessera::npu::plan_check_text(check);
    if (tessera::printable_lines(text) != text) __builtin_trap();
    if (check.overlaps.size() > 3 || check.bank_conflicts.size() > 3) __builtin_trap();
  } catch (const tessera::Error&) {
  }
  return 0;
}
