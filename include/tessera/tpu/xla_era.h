// Which XLA TPU compiler a target profile reproduces. The compiler chooses a device array's
// layout, and its choices changed over the years: the public 2019-2021 OOM reports print pred as
// E(32) and bf16[] as T(512)(2,1), which today's libtpu prints on no generation.
//
//   era    what it reproduces                                      evidence
//   2026   libtpu 0.0.42.1 (jax 0.10.2): the default               tests/fixtures/tpu_oracle/
//   2020   the 2019-2021 compilers of the public OOM reports       generations.cpp's rows
//
// Example: parse_xla_era("2020") == XlaEra::k2020; xla_era_name(kCurrentXlaEra) == "2026".
#pragma once

#include <optional>
#include <string_view>

namespace tessera::tpu {

enum class XlaEra { k2020, k2026 };

inline constexpr XlaEra kCurrentXlaEra = XlaEra::k2026;

// "2020", "2026" or "current" (the newest); throws Error(kInvalid) naming the known eras.
XlaEra parse_xla_era(std::string_view name);
std::string_view xla_era_name(XlaEra era);
// One line: the compiler the era reproduces and where its evidence is.
std::string_view xla_era_description(XlaEra era);

// The era a front end uses: the name it was given, else TESSERA_XLA_ERA when set and not empty,
// else kCurrentXlaEra. Throws like parse_xla_era, naming the variable when it is the cause.
XlaEra xla_era_or_environment(std::optional<std::string_view> given);

}  // namespace tessera::tpu
