// Runs a check once per Highway target this CPU supports (SSE2 to AVX2 here; AVX-512 where present;
// NEON/SVE under qemu-aarch64), for the tests of the portable kernels.
#pragma once

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cstdlib>
#include <string>

#include "relayout/host_profile.h"
#include "relayout/simd_kernels.h"

namespace tessera::relayout {

// Runs `check` once per Highway target this CPU supports, every kernel with that target's own
// code (no prior holding some to AVX2 in the planner's model, host_profile.h), then restores the
// normal choice. With TESSERA_REQUIRE_SIMD_TARGET set (the emulated AVX-512 run,
// scripts/test_avx512.sh) only that target runs: the others are tested natively by every other
// stage, and the emulator spends most of its time interpreting them.
template <class F>
void for_each_target(F&& check) {
  const bool priors = use_host_priors(false);
  const char* required = std::getenv("TESSERA_REQUIRE_SIMD_TARGET");
  for (const int64_t target : hwy::SupportedAndGeneratedTargets()) {
    if (required != nullptr && *required != '\0' &&
        hwy::TargetName(target) != std::string(required))
      continue;
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    EXPECT_EQ(std::string(stream_target(false)), hwy::TargetName(target));
    check();
  }
  hwy::SetSupportedTargetsForTest(0);
  use_host_priors(priors);
}

}  // namespace tessera::relayout
