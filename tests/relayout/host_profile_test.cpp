// The facts and priors of host_profile.h against an independent reading of the CPU
// (/proc/cpuinfo), and the model variants the priors make.
#include "relayout/host_profile.h"

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <fstream>
#include <string>

#include "relayout/kernel_variant.h"
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

TEST(HostProfile, FactsMatchProcCpuinfo) {
  const std::string vendor = cpuinfo("vendor_id");
  if (vendor.empty()) GTEST_SKIP() << "no /proc/cpuinfo vendor here";
#if defined(__x86_64__) || defined(__i386__)
  const HostFacts& facts = host_facts();
  EXPECT_EQ(facts.vendor, vendor);
  EXPECT_EQ(std::to_string(facts.family), cpuinfo("cpu family"));
  EXPECT_EQ(std::to_string(facts.model), cpuinfo("model"));
  EXPECT_FALSE(facts.simd_targets.empty());
  EXPECT_GE(facts.threads, 1);
#endif
}

TEST(HostProfile, PriorsHoldExactlyOnAmdFamily19h) {
  const std::string vendor = cpuinfo("vendor_id");
  if (vendor.empty()) GTEST_SKIP() << "no /proc/cpuinfo vendor here";
  const Family19h host = family_19h_from_cpuinfo();
  const HostPriors p = host_priors();
  EXPECT_EQ(p.avx2_memory_kernels, host.zen4) << vendor << ", family " << cpuinfo("cpu family");
  EXPECT_EQ(p.walk_fewer_streams, host.zen3);
  EXPECT_EQ(p.transpose_rows_32, host.zen3);
  EXPECT_EQ(p.realigned_rows_64, host.zen4);
  EXPECT_EQ(p.prefetch_to_l2, host.zen3 || host.zen4);
  EXPECT_EQ(p.stream_spread_runs, host.zen3 || host.zen4);
}

TEST(HostProfile, PriorsSwitchedOffLeaveTheKernelsOwnDefaults) {
  const bool before = use_host_priors(false);
  const HostPriors p = host_priors();
  EXPECT_FALSE(p.avx2_memory_kernels || p.walk_fewer_streams || p.prefetch_to_l2 ||
               p.transpose_rows_32 || p.realigned_rows_64 || p.stream_spread_runs);
  const KernelVariant transpose = model_variant(KernelClass::kTranspose);
  EXPECT_EQ(transpose.prefetch, Prefetch::kL1);
  EXPECT_EQ(transpose.simd, Simd::kBest);
  EXPECT_EQ(transpose.band_rows, transpose_band_rows(false));
  use_host_priors(before);
}

TEST(HostProfile, TheModelFollowsThePriors) {
  const HostPriors p = host_priors();
  const KernelVariant transpose = model_variant(KernelClass::kTranspose);
  EXPECT_EQ(transpose.prefetch == Prefetch::kL2, p.prefetch_to_l2);
  EXPECT_EQ(transpose.simd == Simd::kAvx2, p.avx2_memory_kernels && simd_has_choice());
  if (p.transpose_rows_32) {
    EXPECT_EQ(transpose.band_rows, 32);
  }
  EXPECT_EQ(model_variant(KernelClass::kRunsTile).walk == Walk::kFewerStreams,
            p.walk_fewer_streams);
  EXPECT_EQ(model_variant(KernelClass::kTileTranspose).realigned_rows == 64, p.realigned_rows_64);
}

TEST(HostProfile, VariantsCanHoldAvx512KernelsToAvx2) {
  if ((hwy::SupportedTargets() & HWY_AVX3) == 0) GTEST_SKIP() << "no AVX-512 on this CPU";
  EXPECT_TRUE(simd_has_choice());
  EXPECT_EQ(std::string(stream_target(true)), "AVX2");
  EXPECT_EQ(std::string(staged_transpose_target(true)), "AVX2");
  EXPECT_EQ(std::string(interleave_target(true)), "AVX2");
  EXPECT_NE(std::string(stream_target(false)), "AVX2");
  hwy::SetSupportedTargetsForTest(HWY_SSE4);  // narrower than AVX2: left alone
  EXPECT_EQ(std::string(stream_target(true)), "SSE4");
  hwy::SetSupportedTargetsForTest(0);
}

}  // namespace
}  // namespace tessera::relayout
