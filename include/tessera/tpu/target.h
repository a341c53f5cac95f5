// The TPU a front end asks about, as one value: the generation (or none, for a layout kept as
// written), how pred is stored, and which compiler's choices to reproduce (xla_era.h). Every
// front end resolves it once, from its flags or the environment (tpu_target_or_environment), and
// the library passes it whole; the alias "tpu" is resolved here, by the parser, for the era.
//
// Example: parse_tpu_target("tpu", XlaEra::k2020) -> {tpu-v3, kTargetDefault, 2020, alias};
//   parse_tpu_target("tpu-v6e") -> {tpu-v6e, kTargetDefault, 2026}; parse_tpu_target("none") is
//   not a TPU (is_tpu() false: layouts keep what is written).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "tessera/tpu/xla_era.h"

namespace tessera::tpu {

// The TPU generations, oldest first; each has one record in generations.h.
enum class Generation { kV2, kV3, kV4, kV5e, kV5p, kV6e, kV7x };

// How a TPU stores pred: 4 bytes (E(32)), 1 byte packed like s8, or the spec's proposed 1 bit.
// kTargetDefault: as the generation does in the era (generations.h).
enum class PredStorage { kFourBytes, kOneBit, kOneByte, kTargetDefault };

struct TpuTarget {
  std::optional<Generation> generation;  // nullopt: "none", the layout exactly as written
  PredStorage pred = PredStorage::kTargetDefault;
  XlaEra era = kCurrentXlaEra;
  // Named "tpu", the era's usual generation: notes then say "--target tpu", not the generation.
  bool alias = false;

  bool is_tpu() const { return generation.has_value(); }
  bool operator==(const TpuTarget&) const = default;
};

// "tpu" -> the era's usual generation (xla_era.h) with alias set, "tpu-v5e" -> tpu-v5e, "none"
// -> no generation; throws Error(kInvalid) listing the known targets otherwise.
TpuTarget parse_tpu_target(std::string_view name, XlaEra era = kCurrentXlaEra,
                           PredStorage pred = PredStorage::kTargetDefault);

// The generation's name ("tpu-v3"), or "none" without one.
std::string_view target_name(const TpuTarget& target);
std::string_view generation_name(Generation generation);

// "tpu, tpu-v2, ..., tpu-v7x, none": every name parse_tpu_target accepts, for help and errors.
std::string known_target_names();

// --pred-bits 32 -> kFourBytes, 8 -> kOneByte, 1 -> kOneBit, 0 -> kTargetDefault; other values
// throw Error(kInvalid).
PredStorage parse_pred_bits(int bits);

// The target a front end uses, resolved once: the era named (else TESSERA_XLA_ERA, else the
// current one), then the target named (else TESSERA_TARGET when set and not empty, else
// `fallback`, "tpu" or "none"), with `pred_bits` as parse_pred_bits reads it. Throws like the
// parsers, naming the variable when it is the cause.
TpuTarget tpu_target_or_environment(std::optional<std::string_view> target,
                                    std::optional<std::string_view> era, int pred_bits,
                                    std::string_view fallback);

// True when TESSERA_TARGET is set and not empty.
bool environment_names_target();

}  // namespace tessera::tpu
