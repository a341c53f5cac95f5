// `tessera npu plan FILE [--json] [-o map.svg|map.html] [--check] [--max-overlaps N]`: a whole
// local-memory plan, checked to the byte, every list bounded. FILE is a JSON plan or tpu-mlir's
// `*_final.mlir` (its layer groups: tessera/npu/tpu_mlir_local_plan.h).
// Thin: the file is read and checked by plan_file.h (the library's readers and reports).
#include <fmt/format.h>

#include <memory>
#include <string>

#include "cli_support.h"
#include "command_registry.h"
#include "plan_file.h"
#include "standard_output.h"
#include "tessera/npu/plan_check.h"
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

void install_npu_plan(CLI::App& app) {
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
    const CheckedPlanFile checked = check_plan_file(args->file, args->max_listed);
    if (!args->output.empty()) checked.write_picture(args->output);
    if (args->json) {
      write_output(checked.json());
    } else {
      write_output(checked.text());
      if (!args->output.empty())
        write_output(fmt::format("wrote {}\n", printable_utf8(args->output)));
    }
    if (args->check && !checked.clean()) {
      write_diagnostic(fmt::format("check failed: {}\n", checked.summary()));
      throw ExitStatus{1};
    }
  });
}

// After `npu` (order 30), which creates the family this command joins.
const CommandRegistration npu_plan_registration(31, install_npu_plan);

}  // namespace
}  // namespace tessera::cli
