// The eras (xla_era.h), each with the generation "tpu" stands for in it.
#include "tessera/tpu/xla_era.h"

#include <fmt/format.h>

#include <array>
#include <cstdlib>

#include "tessera/error.h"
#include "tessera/tpu/generations.h"

namespace tessera::tpu {
namespace {

struct EraRow {
  XlaEra era;
  std::string_view name;
  std::string_view description;
  Generation usual;  // what "tpu" names in this era
};

constexpr std::array<EraRow, 2> kEras = {{
    {XlaEra::k2026, "2026",
     "libtpu 0.0.42.1 with jax 0.10.2, observed by compiling device arrays deviceless for every "
     "generation (tools/tpu_oracle; fixtures in tests/fixtures/tpu_oracle)",
     Generation::kV5e},
    {XlaEra::k2020, "2020",
     "the compilers behind the public 2019-2021 TPU OOM reports and HLO dumps (pred as E(32) on "
     "tpu-v2/v3, bf16[] as T(512)(2,1)); dimension order as written",
     Generation::kV3},
}};

}  // namespace

XlaEra parse_xla_era(std::string_view name) {
  if (name == "current") return kCurrentXlaEra;
  for (const EraRow& row : kEras) {
    if (row.name == name) return row.era;
  }
  throw Error(ErrorKind::kInvalid,
              fmt::format("unknown XLA era '{}'; known eras: 2026 (current), 2020", name));
}

std::string_view xla_era_name(XlaEra era) {
  for (const EraRow& row : kEras) {
    if (row.era == era) return row.name;
  }
  return "?";
}

std::string_view xla_era_description(XlaEra era) {
  for (const EraRow& row : kEras) {
    if (row.era == era) return row.description;
  }
  return "";
}

Generation usual_generation(XlaEra era) {
  for (const EraRow& row : kEras) {
    if (row.era == era) return row.usual;
  }
  return Generation::kV5e;
}

XlaEra xla_era_or_environment(std::optional<std::string_view> given) {
  if (given) return parse_xla_era(*given);
  const char* environment = std::getenv("TESSERA_XLA_ERA");
  if (environment == nullptr || *environment == '\0') return kCurrentXlaEra;
  try {
    return parse_xla_era(environment);
  } catch (const Error& e) {
    throw Error(ErrorKind::kInvalid, fmt::format("TESSERA_XLA_ERA: {}", e.what()));
  }
}

}  // namespace tessera::tpu
