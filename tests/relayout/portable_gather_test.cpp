// gather_row (src/relayout/portable_gather.cpp) on every Highway target this CPU runs, against
// the element loop: reversed and stepped rows of 2-, 4- and 8-byte elements, counts around the
// vector steps, aligned and unaligned destinations, streaming on and off, guard bytes around
// the destination that must stay untouched; and what it leaves to the scalar loop.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "relayout/highway_targets.h"
#include "relayout/simd_kernels.h"

namespace tessera::relayout {
namespace {

constexpr std::byte kGuard{0xEE};

TEST(PortableGather, ReversedAndSteppedRowsOnEveryTarget) {
  for_each_target([&] {
    for (const int unit : {2, 4, 8}) {
      for (const int64_t stride : {-1, 2, 3, -2, 7}) {
        if (unit == 2 && stride != -1 && stride != 2) continue;
        for (int64_t count = 1; count <= 70; count += (count < 20 ? 1 : 7)) {
          for (const std::size_t misalign : {0, 8, 24}) {
            for (const bool streaming : {false, true}) {
              // A source of exactly the row's span, so that ASan sees any read past it; element
              // 0 at its end for negative strides.
              const int64_t span = ((count - 1) * std::abs(stride) + 1) * unit;
              std::vector<std::byte> source(static_cast<std::size_t>(span));
              for (std::size_t i = 0; i < source.size(); ++i)
                source[i] = static_cast<std::byte>((i * 131 + 7) % 251);
              const std::byte* first = source.data() + (stride < 0 ? span - unit : 0);
              std::vector<std::byte> destination(static_cast<std::size_t>(count * unit) + 192,
                                                 kGuard);
              const auto base = reinterpret_cast<uintptr_t>(destination.data());
              const std::size_t start = (64 - base % 64) % 64 + 64 + misalign;
              ASSERT_LE(start + static_cast<std::size_t>(count * unit), destination.size());
              SCOPED_TRACE(testing::Message()
                           << "unit " << unit << " stride " << stride << " count " << count
                           << " misalign " << misalign << " streaming " << streaming);
              ASSERT_TRUE(
                  gather_row(first, stride, unit, count, destination.data() + start, streaming));
              store_fence();
              for (std::size_t i = 0; i < destination.size(); ++i) {
                const auto at = static_cast<int64_t>(i) - static_cast<int64_t>(start);
                if (at < 0 || at >= count * unit) {
                  ASSERT_EQ(destination[i], kGuard) << "byte " << at;
                } else {
                  const int64_t element = at / unit;
                  ASSERT_EQ(destination[i], first[element * stride * unit + at % unit])
                      << "byte " << at;
                }
              }
            }
          }
        }
      }
    }
  });
}

TEST(PortableGather, LeavesOtherRowsToTheScalarLoopAndWritesNothing) {
  const std::vector<std::byte> source(1024, std::byte{1});
  for_each_target([&] {
    std::vector<std::byte> destination(256, kGuard);
    EXPECT_FALSE(gather_row(source.data() + 512, -1, 1, 32, destination.data(), false));
    EXPECT_FALSE(gather_row(source.data(), 3, 2, 32, destination.data(), false));
    EXPECT_FALSE(gather_row(source.data(), 2, 3, 32, destination.data(), false));
    EXPECT_FALSE(gather_row(source.data() + 514, -1, 4, 32, destination.data(), false));
    EXPECT_FALSE(gather_row(source.data() + 512, -1, 4, 32, destination.data() + 2, false));
    for (const std::byte b : destination) ASSERT_EQ(b, kGuard);
  });
}

TEST(PortableGather, DescribeNamesTheSimdTarget) {
  EXPECT_STRNE(gather_target(), "");
}

}  // namespace
}  // namespace tessera::relayout
