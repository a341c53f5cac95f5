// Runs a check once per Highway target this CPU supports (SSE2 to AVX2 here; AVX-512 where present;
// NEON/SVE under qemu-aarch64), for the tests of the portable kernels.
#pragma once

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <string>

#include "relayout/host_profile.h"
#include "relayout/simd_kernels.h"

namespace tessera::relayout {

// Runs `check` once per Highway target this CPU supports, every kernel with that target's own
// code (no prior holding some to AVX2 in the planner's model, host_profile.h), then restores the
// normal choice.
template <class F>
void for_each_target(F&& check) {
  const bool priors = use_host_priors(false);
  for (const int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    EXPECT_EQ(std::string(stream_target(false)), hwy::TargetName(target));
    check();
  }
  hwy::SetSupportedTargetsForTest(0);
  use_host_priors(priors);
}

}  // namespace tessera::relayout
