// `tessera npu plan FILE [--json] [-o map.svg|map.html] [--check] [--max-overlaps N]`: a whole
// local-memory plan, checked to the byte, every list bounded. FILE is a JSON plan or tpu-mlir's
// `*_final.mlir` (its layer groups: tessera/npu/tpu_mlir_local_plan.h).
// Thin: parsing in tessera/npu/local_plan.h, checks and reports in tessera/npu/plan_check.h,
// the picture in tessera/render/npu_plan_picture.h.
#include <fmt/format.h>

#include <memory>
#include <string>

#include "cli_support.h"
#include "command_registry.h"
#include "standard_output.h"
#include "tessera/npu/local_plan.h"
#include "tessera/npu/plan_check.h"
#include "tessera/npu/tpu_mlir_local_plan.h"
#include "tessera/render/npu_plan_picture.h"
#include "tessera/render/tpu_mlir_plan_picture.h"
#include "tessera/utf8_text.h"

namespace tessera::cli {
namespace {

struct PlanArguments {
  std::string file;
  std::string output;
  bool json = false;
  bool check = false;
  int64_t max_listed = npu::PlanCheckOptions{}.max_listed;
};

void run_tpu_mlir_plan(const PlanArguments& args) {
  const npu::TpuMlirPlanCheck check =
      npu::check_tpu_mlir_plan(npu::read_tpu_mlir_plan(args.file), {.max_listed = args.max_listed});
  if (!args.output.empty()) {
    render::write_picture(render::build_tpu_mlir_plan_picture(check), args.output);
  }
  if (args.json) {
    write_output(npu::tpu_mlir_plan_json(check).dump(2) + "\n");
  } else {
    write_output(npu::tpu_mlir_plan_text(check));
    if (!args.output.empty()) write_output(fmt::format("wrote {}\n", printable_utf8(args.output)));
  }
  if (args.check && !check.clean()) {
    write_diagnostic(fmt::format("check failed: {}\n", npu::tpu_mlir_plan_summary(check)));
    throw ExitStatus{1};
  }
}

void install(CLI::App& app) {
  auto args = std::make_shared<PlanArguments>();
  auto* family = app.get_subcommand("npu");
  auto* plan = family->add_subcommand(
      "plan",
      "Several tensors sharing local memory (JSON plan, or tpu-mlir's *_final.mlir): overlaps, "
      "empty-block reuse, banks, "
      "free memory, auto addresses, slices");
  plan->add_option("file", args->file,
                   "Plan file (JSON: device, tensors, ops; or tpu-mlir's *_final.mlir)")
      ->required();
  plan->add_flag("--json", args->json, "One JSON object instead of text");
  plan->add_option("-o,--output", args->output, "Also draw the plan: .svg or .html");
  plan->add_flag("--check", args->check,
                 "Exit 1 when the plan has overlaps, bank conflicts or tensors not placed or "
                 "past local memory (0 when clean; bad input is still 2)");
  add_max_overlaps_option(plan, args->max_listed);
  plan->callback([args] {
    if (npu::is_tpu_mlir_plan_file(args->file)) {
      run_tpu_mlir_plan(*args);
      return;
    }
    const npu::PlanCheck check =
        npu::check_local_plan(npu::read_local_plan(args->file), {.max_listed = args->max_listed});
    if (!args->output.empty()) {
      render::write_picture(render::build_npu_plan_picture(check), args->output);
    }
    if (args->json) {
      write_output(npu::plan_check_json(check).dump(2) + "\n");
    } else {
      write_output(npu::plan_check_text(check));
      if (!args->output.empty())
        write_output(fmt::format("wrote {}\n", printable_utf8(args->output)));
    }
    if (args->check && !check.clean()) {
      write_diagnostic(fmt::format("check failed: {}\n", npu::plan_check_summary(check)));
      throw ExitStatus{1};
    }
  });
}

// After `npu` (order 30), which creates the family this command joins.
const CommandRegistration registration(31, install);

}  // namespace
}  // namespace tessera::cli
