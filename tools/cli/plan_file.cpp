#include "plan_file.h"

#include "tessera/npu/local_plan.h"
#include "tessera/render/npu_plan_picture.h"
#include "tessera/render/tpu_mlir_plan_picture.h"

namespace tessera::cli {
namespace {

// One overload per kind of plan, so each member below is one std::visit.
struct Report {
  static std::string text(const npu::PlanCheck& c) { return npu::plan_check_text(c); }
  static std::string text(const npu::TpuMlirPlanCheck& c) { return npu::tpu_mlir_plan_text(c); }
  static std::string json(const npu::PlanCheck& c) { return npu::plan_check_json(c).dump(2); }
  static std::string json(const npu::TpuMlirPlanCheck& c) {
    return npu::tpu_mlir_plan_json(c).dump(2);
  }
  static std::string summary(const npu::PlanCheck& c) { return npu::plan_check_summary(c); }
  static std::string summary(const npu::TpuMlirPlanCheck& c) {
    return npu::tpu_mlir_plan_summary(c);
  }
  static render::NpuPlanPicture picture(const npu::PlanCheck& c) {
    return render::build_npu_plan_picture(c);
  }
  static render::NpuPlanPicture picture(const npu::TpuMlirPlanCheck& c) {
    return render::build_tpu_mlir_plan_picture(c);
  }
};

}  // namespace

bool CheckedPlanFile::clean() const {
  return std::visit([](const auto& c) { return c.clean(); }, check);
}

std::string CheckedPlanFile::text() const {
  return std::visit([](const auto& c) { return Report::text(c); }, check);
}

std::string CheckedPlanFile::json() const {
  return std::visit([](const auto& c) { return Report::json(c); }, check) + "\n";
}

std::string CheckedPlanFile::summary() const {
  return std::visit([](const auto& c) { return Report::summary(c); }, check);
}

void CheckedPlanFile::write_picture(const std::string& path) const {
  render::write_picture(std::visit([](const auto& c) { return Report::picture(c); }, check), path);
}

CheckedPlanFile check_plan_file(const std::string& file, int64_t max_listed) {
  if (npu::is_tpu_mlir_plan_file(file)) {
    return {npu::check_tpu_mlir_plan(npu::read_tpu_mlir_plan(file), {.max_listed = max_listed})};
  }
  return {npu::check_local_plan(npu::read_local_plan(file), {.max_listed = max_listed})};
}

}  // namespace tessera::cli
