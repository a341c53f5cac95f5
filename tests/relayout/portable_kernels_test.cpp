// The Highway kernels on every target this CPU runs (here SSE2 to AVX2; AVX-512 where present;
// NEON/SVE under qemu-aarch64): the streaming copies (src/relayout/streaming_kernels.cpp) for
// every destination alignment and lengths around the vector and 4-vector steps, the portable
// 16x16 transpose (portable_transpose.cpp), and the SIMD target describe() reports.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "relayout/highway_targets.h"
#include "relayout/simd_kernels.h"
#include "tessera/relayout/layout_operand.h"
#include "tessera/relayout/relayout_plan.h"
#include "tessera/relayout/streaming_copy.h"

namespace tessera::relayout {
namespace {

std::vector<std::byte> byte_pattern(std::size_t n, unsigned seed) {
  std::vector<std::byte> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((i * 131 + seed) % 251);
  return v;
}

TEST(StreamingKernels, CopyEveryAlignmentAndLength) {
  const std::vector<std::byte> source = byte_pattern(4096 + 64, 7);
  for_each_target([&] {
    for (std::size_t offset = 0; offset < 64; offset += 5) {
      for (const std::size_t bytes :
           // 48, 80, 112, 496: a 16-byte tail after whole 32-byte vectors (streamed since the
           // f32[16380,16380] -> T(8,128) measurement in streaming_kernels.cpp).
           {0,   1,   15,  16,  31,  33,  48,  63,  64,  65,   80,
            112, 127, 128, 129, 255, 256, 257, 496, 511, 1000, 4096}) {
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
  const std::vector<std::byte> source = byte_pattern(64 * 700, 3);
  for_each_target([&] {
    for (const std::size_t run : {16, 100, 512}) {
      std::vector<std::byte> destination(64 * 800, std::byte{0});
      stream_runs(destination.data() + 32, 600, source.data() + 8, 650, run, 50, false);
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

// Source rows of 16 floats at `source_stride` floats, in two groups of 8 `group` floats apart.
void expect_transposed(const std::vector<float>& source, int64_t source_stride,
                       int64_t source_group, const std::vector<float>& destination,
                       int64_t destination_stride, int64_t destination_group) {
  for (int64_t i = 0; i < 16; ++i) {
    for (int64_t j = 0; j < 16; ++j) {
      ASSERT_EQ(
          destination[static_cast<std::size_t>((j % 8) * destination_stride +
                                               (j / 8) * destination_group + i)],
          source[static_cast<std::size_t>((i % 8) * source_stride + (i / 8) * source_group + j)])
          << "element (" << i << ", " << j << ")";
    }
  }
}

TEST(PortableTranspose, StridedAndListedRowsOnEveryTarget) {
  std::vector<float> source(64 * 40);
  for (std::size_t i = 0; i < source.size(); ++i) source[i] = static_cast<float>(i);
  for_each_target([&] {
    EXPECT_EQ(std::string(transpose_target()), stream_target(false));
    // A plain matrix (group = 8 rows), T(8,128)-like groups, an unaligned destination (offset 1).
    for (const auto& [stride, group, offset] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{
             {20, 160, 0}, {16, 1024, 0}, {24, 200, 1}}) {
      for (const bool streaming : {false, true}) {
        alignas(64) static float out[4096];
        std::fill(std::begin(out), std::end(out), -1.0f);
        transpose_16x16_f32(reinterpret_cast<const std::byte*>(source.data() + 3), stride * 4,
                            group * 4, reinterpret_cast<std::byte*>(out + offset), stride * 4,
                            group * 4, streaming);
        store_fence();
        const std::vector<float> destination(out + offset, out + 4096);
        const std::vector<float> shifted(source.begin() + 3, source.end());
        expect_transposed(shifted, stride, group, destination, stride, group);
      }
    }
    const std::byte* from[16];
    std::byte* to[16];
    std::vector<float> listed(16 * 16 * 3, 0.0f);
    for (int k = 0; k < 16; ++k) {
      from[k] = reinterpret_cast<const std::byte*>(source.data() + (15 - k) * 48);
      to[k] = reinterpret_cast<std::byte*>(listed.data() + k * 48);
    }
    transpose_16x16_f32(from, to, true);
    store_fence();
    for (int i = 0; i < 16; ++i) {
      for (int j = 0; j < 16; ++j) {
        ASSERT_EQ(listed[static_cast<std::size_t>(j * 48 + i)],
                  source[static_cast<std::size_t>((15 - i) * 48 + j)]);
      }
    }
  });
}

TEST(StreamingKernels, DescribeNamesTheSimdTarget) {
  const auto plan_for = [](const char* from, const char* to) {
    const LayoutOperand source = parse_layout_operand(from);
    const LayoutOperand destination = parse_layout_operand(to);
    return plan(*source.map, *destination.map,
                {.threads = 1, .streaming_bytes = 4 << 20, .variant = ForcedVariant::parse("best")})
        .describe();
  };
  // Whole 512-byte lines of a 4 MiB output, streamed: the Highway streaming copy.
  const std::string runs = plan_for("f32[1024,1024]{1,0}", "f32[1024,1024]{1,0:T(8,128)}");
  EXPECT_NE(runs.find(std::string("simd ") + stream_target(false) + " (Highway)"),
            std::string::npos)
      << runs;
  const std::string transpose = plan_for("f32[64,64]{1,0}", "f32[64,64]{0,1}");
  const std::string portable = std::string("simd ") + transpose_target() + " (Highway)";
  EXPECT_NE(transpose.find(portable), std::string::npos) << transpose;
  const std::string bytes = plan_for("s8[8,8]{1,0}", "s8[8,8]{0,1}");
  EXPECT_NE(bytes.find("simd none (scalar)"), std::string::npos) << bytes;
}

}  // namespace
}  // namespace tessera::relayout
