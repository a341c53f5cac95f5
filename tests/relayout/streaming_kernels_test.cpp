// The Highway streaming copies (src/relayout/streaming_kernels.cpp) on every target this CPU
// runs (here SSE2 to AVX2; AVX-512 where present; NEON under qemu-aarch64), every destination
// alignment and lengths around the vector and 4-vector steps, and what describe() reports.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cstring>
#include <string>
#include <vector>

#include "relayout/simd_kernels.h"
#include "tessera/relayout/layout_operand.h"
#include "tessera/relayout/relayout_plan.h"
#include "tessera/relayout/streaming_copy.h"

namespace tessera::relayout {
namespace {

std::vector<std::byte> pattern(std::size_t n, unsigned seed) {
  std::vector<std::byte> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((i * 131 + seed) % 251);
  return v;
}

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

TEST(StreamingKernels, CopyEveryAlignmentAndLength) {
  const std::vector<std::byte> source = pattern(4096 + 64, 7);
  for_each_target([&] {
    for (std::size_t offset = 0; offset < 64; offset += 5) {
      for (const std::size_t bytes :
           {0, 1, 15, 16, 31, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 511, 1000, 4096}) {
        std::vector<std::byte> destination(4096 + 128, std::byte{0xEE});
        streaming_copy(destination.data() + offset, source.data() + (offset * 3) % 64, bytes);
        for (std::size_t i = 0; i < destination.size(); ++i) {
          const bool inside = i >= offset && i < offset + bytes;
          const std::byte expected =
              inside ? source[(offset * 3) % 64 + i - offset] : std::byte{0xEE};
          ASSERT_EQ(destination[i], expected)
              << "offset " << offset << " bytes " << bytes << " at " << i;
        }
      }
    }
  });
}

TEST(StreamingKernels, RunsWithGapsOnBothSides) {
  const std::vector<std::byte> source = pattern(64 * 700, 3);
  for_each_target([&] {
    for (const std::size_t run : {16, 100, 512}) {
      std::vector<std::byte> destination(64 * 800, std::byte{0});
      stream_runs(destination.data() + 32, 600, source.data() + 8, 650, run, 50);
      store_fence();
      for (int64_t r = 0; r < 50; ++r) {
        ASSERT_EQ(std::memcmp(destination.data() + 32 + r * 600, source.data() + 8 + r * 650, run),
                  0)
            << "run " << r << " of " << run << " bytes";
        if (run < 600) {
          ASSERT_EQ(destination[32 + r * 600 + run], std::byte{0});
        }
      }
    }
  });
}

TEST(StreamingKernels, DescribeNamesTheSimdTarget) {
  const auto plan_for = [](const char* from, const char* to) {
    const LayoutOperand source = parse_layout_operand(from);
    const LayoutOperand destination = parse_layout_operand(to);
    return plan(*source.map, *destination.map, {.threads = 1}).describe();
  };
  // Whole 512-byte lines of a 4 MiB output (streamed): the Highway streaming copy.
  const std::string runs = plan_for("f32[1024,1024]{1,0}", "f32[1024,1024]{1,0:T(8,128)}");
  EXPECT_NE(runs.find(std::string("simd ") + stream_target() + " (Highway)"), std::string::npos)
      << runs;
  const std::string transpose = plan_for("f32[64,64]{1,0}", "f32[64,64]{0,1}");
  EXPECT_NE(transpose.find(has_avx2() ? "simd AVX2 (hand-written)" : "simd none (scalar)"),
            std::string::npos)
      << transpose;
  const std::string bytes = plan_for("s8[8,8]{1,0}", "s8[8,8]{0,1}");
  EXPECT_NE(bytes.find("simd none (scalar)"), std::string::npos) << bytes;
}

}  // namespace
}  // namespace tessera::relayout
