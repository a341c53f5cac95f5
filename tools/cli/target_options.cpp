#include "target_options.h"

#include <optional>

#include "tessera/xla/notation.h"

namespace tessera::cli {

void add_target_options(CLI::App* command, TargetArguments& args, const std::string& help) {
  args.target_option = command->add_option("--target", args.target,
                                           help +
                                               " (also TESSERA_TARGET): tpu, tpu-v2, tpu-v3, "
                                               "tpu-v4, tpu-v5e, tpu-v5p, tpu-v6e, tpu-v7x, "
                                               "none");
  args.era_option = command->add_option(
      "--xla-era", args.xla_era,
      "Which TPU compiler's choices to reproduce (also TESSERA_XLA_ERA): 2026 (default: libtpu "
      "0.0.42.1, which also orders a device array's dims) or 2020 (the public 2019-2021 reports)");
  command->add_option("--pred-bits", args.pred_bits,
                      "TPU pred storage: 32 (E(32)), 8 ((4,1)) or 1 ((32,1)E(1)); default: the "
                      "generation's");
}

explain::Target resolve_target(const TargetArguments& args, explain::Target fallback) {
  std::optional<std::string_view> given;
  if (args.target_option != nullptr && args.target_option->count() > 0) given = args.target;
  return explain::target_or_environment(given, fallback);
}

explain::XlaEra resolve_era(const TargetArguments& args) {
  std::optional<std::string_view> given;
  if (args.era_option != nullptr && args.era_option->count() > 0) given = args.xla_era;
  return explain::xla_era_or_environment(given);
}

explain::DimensionOrder order_of(const std::string& shape_text) {
  bool layout_written = false;
  (void)xla::parse_shape(shape_text, layout_written);
  return layout_written ? explain::DimensionOrder::kAsWritten
                        : explain::DimensionOrder::kCompilerChooses;
}

bool target_is_default(const TargetArguments& args) {
  return (args.target_option == nullptr || args.target_option->count() == 0) &&
         !explain::environment_names_target();
}

}  // namespace tessera::cli
