// --target, --xla-era and --pred-bits, shared by every command that takes a shape (README: "Target
// profiles"). The names and their meaning live in the library (tessera/explain/target_profile.h).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "tessera/explain/target_profile.h"

namespace tessera::cli {

struct TargetArguments {
  std::string target;
  std::string xla_era;
  int pred_bits = 0;  // 0: the target generation's own pred storage
  CLI::Option* target_option = nullptr;
  CLI::Option* era_option = nullptr;
};

void add_target_options(CLI::App* command, TargetArguments& args, const std::string& help);

// --target when given, else TESSERA_TARGET, else `fallback`.
explain::Target resolve_target(const TargetArguments& args, explain::Target fallback);

// True when neither --target nor TESSERA_TARGET named a target.
bool target_is_default(const TargetArguments& args);

// --xla-era when given, else TESSERA_XLA_ERA, else the current era.
explain::XlaEra resolve_era(const TargetArguments& args);

// kCompilerChooses for a shape written without a layout (a device array), else kAsWritten.
explain::DimensionOrder order_of(const std::string& shape_text);

}  // namespace tessera::cli
