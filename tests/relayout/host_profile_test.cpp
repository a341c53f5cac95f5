// The host rule of host_profile.h against an independent reading of the CPU (/proc/cpuinfo), and
// the kernels it holds to AVX2 against the ones it leaves alone.
#include "relayout/host_profile.h"

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <fstream>
#include <string>

#include "relayout/simd_kernels.h"

namespace tessera::relayout {
namespace {

// The first value of `key` in /proc/cpuinfo ("vendor_id", "cpu family", "flags"), or "".
std::string cpuinfo(const std::string& key) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0 && line.find(':') != std::string::npos) {
      const std::size_t value = line.find_first_not_of(" \t", line.find(':') + 1);
      return value == std::string::npos ? "" : line.substr(value);
    }
  }
  return "";
}

// What /proc/cpuinfo says of an x86 AMD family 19h host (Zen 3 without AVX-512, Zen 4 with):
// never on other architectures, even where /proc/cpuinfo describes an AMD host (qemu-user passes
// the host's through, scripts/test_aarch64.sh).
struct Family19h {
  bool zen3 = false;
  bool zen4 = false;
};

Family19h family_19h_from_cpuinfo() {
#if defined(__x86_64__) || defined(__i386__)
  if (cpuinfo("vendor_id") != "AuthenticAMD" || cpuinfo("cpu family") != "25") return {};
  const bool avx512 = (" " + cpuinfo("flags") + " ").find(" avx512f ") != std::string::npos;
  return {!avx512, avx512};
#else
  return {};
#endif
}

TEST(HostProfile, TheRuleHoldsExactlyOnAmdZen4) {
  const std::string vendor = cpuinfo("vendor_id");
  if (vendor.empty()) GTEST_SKIP() << "no /proc/cpuinfo vendor here";
  const bool zen4 = family_19h_from_cpuinfo().zen4;
  EXPECT_EQ(is_amd_zen4(), zen4) << vendor << ", family " << cpuinfo("cpu family") << ", flags "
                                 << cpuinfo("flags");
  EXPECT_EQ(memory_kernels_prefer_avx2(), zen4);
}

TEST(HostProfile, SpreadRunsAndL2PrefetchesExactlyOnAmdZen3AndZen4) {
  const std::string vendor = cpuinfo("vendor_id");
  if (vendor.empty()) GTEST_SKIP() << "no /proc/cpuinfo vendor here";
  const Family19h host = family_19h_from_cpuinfo();
  const bool family_19h = host.zen3 || host.zen4;
  EXPECT_EQ(is_amd_zen3_or_zen4(), family_19h) << vendor << ", family " << cpuinfo("cpu family");
  EXPECT_EQ(spread_runs_stream(), family_19h);
  EXPECT_EQ(transposes_prefetch_to_l2(), family_19h);
  EXPECT_TRUE(!is_amd_zen4() || is_amd_zen3_or_zen4());
}

TEST(HostProfile, RunsWalkWithFewerStreamsOpenExactlyOnAmdZen3) {
  const std::string vendor = cpuinfo("vendor_id");
  if (vendor.empty()) GTEST_SKIP() << "no /proc/cpuinfo vendor here";
  EXPECT_EQ(runs_walk_fewer_streams(), family_19h_from_cpuinfo().zen3)
      << vendor << ", family " << cpuinfo("cpu family");
}

TEST(HostProfile, TransposesReadThirtyTwoRowsAtATimeOnAmdZen3) {
  const std::string vendor = cpuinfo("vendor_id");
  if (vendor.empty()) GTEST_SKIP() << "no /proc/cpuinfo vendor here";
  const bool zen3 = family_19h_from_cpuinfo().zen3;
  EXPECT_EQ(transpose_rows_here(128), zen3 ? 32 : 128);
  EXPECT_EQ(transpose_rows_here(32), 32);
  if (zen3) {
    EXPECT_EQ(transpose_band_rows(), 32);
  }
}

TEST(HostProfile, HeldKernelsRunAvx2InPlaceOfWiderTargetsAndTheOthersTheBest) {
  if ((hwy::SupportedTargets() & HWY_AVX3) == 0) GTEST_SKIP() << "no AVX-512 on this CPU";
  const bool before = hold_memory_kernels_to_avx2(true);
  EXPECT_EQ(std::string(stream_target()), "AVX2");
  EXPECT_EQ(std::string(staged_transpose_target()), "AVX2");
  EXPECT_EQ(std::string(transpose_target()), "AVX3");
  EXPECT_EQ(std::string(interleave_target()), "AVX2");
  EXPECT_EQ(std::string(pack_bits_target()), "AVX3");
  hwy::SetSupportedTargetsForTest(HWY_SSE4);  // narrower than AVX2: left alone
  EXPECT_EQ(std::string(stream_target()), "SSE4");
  hwy::SetSupportedTargetsForTest(0);
  hold_memory_kernels_to_avx2(false);
  EXPECT_EQ(std::string(stream_target()), "AVX3");
  EXPECT_EQ(std::string(staged_transpose_target()), "AVX3");
  EXPECT_EQ(std::string(interleave_target()), "AVX3");
  hold_memory_kernels_to_avx2(before);
}

}  // namespace
}  // namespace tessera::relayout
