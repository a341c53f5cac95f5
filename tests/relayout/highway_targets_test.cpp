// Proof that a run covered the SIMD target it was meant to: scripts/test_avx512.sh boots an
// emulated AVX-512 CPU and sets TESSERA_REQUIRE_SIMD_TARGET=AVX3, so a guest whose kernel left
// AVX-512 off (or a Highway build without AVX3) fails here instead of passing on SSE4/AVX2 alone.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cstdlib>
#include <string>

#include "relayout/host_profile.h"
#include "relayout/simd_kernels.h"

namespace tessera::relayout {
namespace {

TEST(HighwayTargets, TheRequiredTargetIsTestedAndChosenByDefault) {
  const char* required = std::getenv("TESSERA_REQUIRE_SIMD_TARGET");
  if (required == nullptr || *required == '\0') {
    GTEST_SKIP() << "TESSERA_REQUIRE_SIMD_TARGET is not set";
  }
  std::string tested;
  bool found = false;
  for (const int64_t target : hwy::SupportedAndGeneratedTargets()) {
    tested += std::string(tested.empty() ? "" : ", ") + hwy::TargetName(target);
    found = found || std::string(hwy::TargetName(target)) == required;
  }
  EXPECT_TRUE(found) << "targets this CPU runs and the build has: " << tested;
  // The best of them is what every kernel dispatches to outside the per-target tests, unless
  // its variant asks for AVX2 (kernel_variant.h).
  EXPECT_EQ(std::string(stream_target(false)), required);
  EXPECT_EQ(std::string(staged_transpose_target(false)), required);
  EXPECT_EQ(std::string(transpose_target()), required);
  EXPECT_EQ(std::string(gather_target()), required);
  EXPECT_EQ(std::string(interleave_target(false)), required);
  EXPECT_EQ(std::string(pack_bits_target(false)), required);
}

}  // namespace
}  // namespace tessera::relayout
