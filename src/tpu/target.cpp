// Target names, pred storage and the one resolution of a front end's flags (target.h).
#include "tessera/tpu/target.h"

#include <fmt/format.h>

#include <cstdlib>

#include "tessera/error.h"
#include "tessera/tpu/generations.h"
#include "tessera/utf8_text.h"

namespace tessera::tpu {
namespace {

constexpr std::string_view kAlias = "tpu";
constexpr std::string_view kNone = "none";

const char* environment_value(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

}  // namespace

std::string known_target_names() {
  std::string out(kAlias);
  for (const TpuGeneration& g : tpu_generations()) out += fmt::format(", {}", g.name);
  return out + fmt::format(", {}", kNone);
}

TpuTarget parse_tpu_target(std::string_view name, XlaEra era, PredStorage pred) {
  TpuTarget target{.generation = std::nullopt, .pred = pred, .era = era, .alias = false};
  if (name == kNone) return target;
  if (name == kAlias) {
    target.generation = usual_generation(era);
    target.alias = true;
    return target;
  }
  for (const TpuGeneration& g : tpu_generations()) {
    if (g.name == name) {
      target.generation = g.generation;
      return target;
    }
  }
  throw Error(ErrorKind::kInvalid, fmt::format("unknown target '{}'; known targets: {}",
                                               printable_utf8(name), known_target_names()));
}

std::string_view generation_name(Generation generation) {
  return tpu_generation(generation).name;
}

std::string_view target_name(const TpuTarget& target) {
  return target.is_tpu() ? generation_name(*target.generation) : kNone;
}

PredStorage parse_pred_bits(int bits) {
  if (bits == 32) return PredStorage::kFourBytes;
  if (bits == 8) return PredStorage::kOneByte;
  if (bits == 1) return PredStorage::kOneBit;
  if (bits == 0) return PredStorage::kTargetDefault;
  throw Error(ErrorKind::kInvalid,
              fmt::format("--pred-bits {} is not a TPU pred storage; use 32, 8 or 1", bits));
}

bool environment_names_target() {
  return environment_value("TESSERA_TARGET") != nullptr;
}

TpuTarget tpu_target_or_environment(std::optional<std::string_view> target,
                                    std::optional<std::string_view> era, int pred_bits,
                                    std::string_view fallback) {
  const PredStorage pred = parse_pred_bits(pred_bits);
  const XlaEra resolved_era = xla_era_or_environment(era);
  if (target) return parse_tpu_target(*target, resolved_era, pred);
  const char* environment = environment_value("TESSERA_TARGET");
  if (environment == nullptr) return parse_tpu_target(fallback, resolved_era, pred);
  try {
    return parse_tpu_target(environment, resolved_era, pred);
  } catch (const Error& e) {
    throw Error(ErrorKind::kInvalid, fmt::format("TESSERA_TARGET: {}", e.what()));
  }
}

}  // namespace tessera::tpu
