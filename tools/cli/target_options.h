// --target, --xla-era and --pred-bits, shared by every command that takes a shape
// (docs/reference/tpu-targets.md). The names and their meaning live in the library
// (tessera/tpu/target.h), which resolves them once into a tpu::TpuTarget.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>

#include "tessera/tpu/target_profile.h"

namespace tessera::cli {

struct TargetArguments {
  std::string target;
  std::string xla_era;
  int pred_bits = 0;  // 0: the target generation's own pred storage
  CLI::Option* target_option = nullptr;
  CLI::Option* era_option = nullptr;
};

void add_target_options(CLI::App* command, TargetArguments& args, const std::string& help);

// The target of --target (else TESSERA_TARGET, else `fallback`, "tpu" or "none"), --xla-era
// (else TESSERA_XLA_ERA, else the current era) and --pred-bits, resolved once.
tpu::TpuTarget resolve_target(const TargetArguments& args, std::string_view fallback);

// --xla-era and --pred-bits resolved as resolve_target does, without a generation (--target and
// TESSERA_TARGET are not read): for what a command shows before it knows its shape.
tpu::TpuTarget resolve_era_and_pred(const TargetArguments& args);

// True when neither --target nor TESSERA_TARGET named a target.
bool target_is_default(const TargetArguments& args);

// kCompilerChooses for a shape written without a layout (a device array), else kAsWritten.
tpu::DimensionOrder order_of(const std::string& shape_text);

}  // namespace tessera::cli
