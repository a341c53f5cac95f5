// What several explain tests share: the 2020-era TPU target the public reports describe, and byte
// sizes. One definition, so that the tests can also be compiled in one batch (a unity build).
#pragma once

#include <cstdint>

#include "tessera/tpu/target.h"

namespace tessera::explain {

inline tpu::TpuTarget tpu_2020(tpu::PredStorage pred = tpu::PredStorage::kTargetDefault) {
  return tpu::parse_tpu_target("tpu", tpu::XlaEra::k2020, pred);
}

inline constexpr int64_t kKiB = 1024;
inline constexpr int64_t kMiB = 1024 * kKiB;
inline constexpr int64_t kGiB = 1024 * kMiB;

}  // namespace tessera::explain
