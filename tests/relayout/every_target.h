// Runs a check once per Highway target this CPU supports (here SSE2 to AVX2; AVX-512 where
// present), so every dispatched kernel is tested, not only the one the CPU would pick.
#pragma once

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <string>

#include "relayout/simd_kernels.h"

namespace tessera::relayout {

template <class F>
void for_each_target(F&& check) {
  for (const int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    EXPECT_EQ(std::string(stream_target()), hwy::TargetName(target));
    check();
  }
  hwy::SetSupportedTargetsForTest(0);  // back to the CPU's best
}

}  // namespace tessera::relayout
