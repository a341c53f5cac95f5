#include "target_options.h"

#include <optional>

#include "tessera/xla/notation.h"

namespace tessera::cli {

void add_target_options(CLI::App* command, TargetArguments& args, const std::string& help) {
  args.target_option = command->add_option(
      "--target", args.target, help + " (also TESSERA_TARGET): " + tpu::known_target_names());
  args.era_option = command->add_option(
      "--xla-era", args.xla_era,
      "Which TPU compiler's choices to reproduce (also TESSERA_XLA_ERA): 2026 (default: libtpu "
      "0.0.42.1, which also orders a device array's dims) or 2020 (the public 2019-2021 reports)");
  command->add_option("--pred-bits", args.pred_bits,
                      "TPU pred storage: 32 (E(32)), 8 ((4,1)) or 1 ((32,1)E(1)); default: the "
                      "generation's");
}

tpu::TpuTarget resolve_target(const TargetArguments& args, std::string_view fallback) {
  std::optional<std::string_view> target;
  if (args.target_option != nullptr && args.target_option->count() > 0) target = args.target;
  std::optional<std::string_view> era;
  if (args.era_option != nullptr && args.era_option->count() > 0) era = args.xla_era;
  return tpu::tpu_target_or_environment(target, era, args.pred_bits, fallback);
}

tpu::TpuTarget resolve_era_and_pred(const TargetArguments& args) {
  std::optional<std::string_view> era;
  if (args.era_option != nullptr && args.era_option->count() > 0) era = args.xla_era;
  return tpu::tpu_target_or_environment("none", era, args.pred_bits, "none");
}

tpu::DimensionOrder order_of(const std::string& shape_text) {
  bool layout_written = false;
  (void)xla::parse_shape(shape_text, layout_written);
  return layout_written ? tpu::DimensionOrder::kAsWritten : tpu::DimensionOrder::kCompilerChooses;
}

bool target_is_default(const TargetArguments& args) {
  return (args.target_option == nullptr || args.target_option->count() == 0) &&
         !tpu::environment_names_target();
}

}  // namespace tessera::cli
