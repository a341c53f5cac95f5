// Runs a check once per Highway target this CPU supports (SSE2 to AVX2 here; AVX-512 where present;
// NEON/SVE under qemu-aarch64), for the tests of the portable kernels.
#pragma once

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <string>

#include "relayout/simd_kernels.h"

namespace tessera::relayout {

// Runs `check` once per Highway target this CPU supports, then restores the normal choice.
template <class F>
void for_each_target(F&& check) {
  for (const int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    EXPECT_EQ(std::string(stream_target()), hwy::TargetName(target));
    check();
  }
  hwy::SetSupportedTargetsForTest(0);
}

}  // namespace tessera::relayout
