// Which outputs are written with non-temporal stores (RelayoutOptions::streaming_bytes): runs of
// whole lines only when what they write would not stay in the last-level cache, transposes from
// 4 MiB, and everything the caller asks for. describe() says "streaming" for each kernel that does.
#include <gtest/gtest.h>

#include <string>

#include "relayout/cache_size.h"
#include "relayout/host_profile.h"
#include "tessera/relayout/layout_operand.h"
#include "tessera/relayout/relayout_plan.h"

namespace tessera::relayout {
namespace {

std::string describe(const std::string& from, const std::string& to, RelayoutOptions options,
                     int threads = 1) {
  const LayoutOperand source = parse_layout_operand(from);
  const LayoutOperand destination = parse_layout_operand(to);
  options.threads = threads;
  return plan(*source.map, *destination.map, options).describe();
}

bool streams(const std::string& text) {
  return text.find("streaming") != std::string::npos;
}

// f32 rows of 1024 elements into T(8,128): `rows` x 4 KiB of whole-line runs.
std::string rows_into_tiles(int64_t rows, RelayoutOptions options = {}) {
  const std::string shape = "f32[" + std::to_string(rows) + ",1024]";
  return describe(shape + "{1,0}", shape + "{1,0:T(8,128)}", options);
}

TEST(StreamingChoice, RunsStreamOnlyPastThreeQuartersOfTheLastLevelCache) {
  const int64_t cache = last_level_cache_bytes();
  if (cache <= 0) {  // unknown: every output from 4 MiB streams
    EXPECT_TRUE(streams(rows_into_tiles(1024)));
    EXPECT_FALSE(streams(rows_into_tiles(1016)));
    return;
  }
  const int64_t fits = cache / 4 * 3 / 4096 / 8 * 8;  // rows whose output is within the limit
  const int64_t past = fits + 8;
  EXPECT_FALSE(streams(rows_into_tiles(fits))) << cache;
  EXPECT_TRUE(streams(rows_into_tiles(past))) << cache;
}

// 8 MiB of f32[2,256,64,64] channels, 4 per NPU, into the local memory image of a made-up
// 64-NPU device at least twice the last-level cache: whole-line runs 1 MiB or more apart.
std::string channels_into_image(int threads) {
  int64_t npu_bytes = int64_t{1} << 20;
  while (64 * npu_bytes < 2 * last_level_cache_bytes()) npu_bytes *= 2;
  return describe("f32[2,256,64,64]{3,2,1,0}",
                  "npu:npus=64,lmem=" + std::to_string(npu_bytes) + ",align=64:2,256,64,64:f32:0",
                  {}, threads);
}

TEST(StreamingChoice, RunsSpreadOverMoreThanTheCacheStreamWhereTheHostSaysSo) {
  const int64_t cache = last_level_cache_bytes();
  const int64_t written = int64_t{8} << 20;
  const bool past = cache <= 0 || written > cache / 4 * 3;  // the rule for every host
  EXPECT_EQ(streams(channels_into_image(1)), past || host_priors().stream_spread_runs) << cache;
  EXPECT_EQ(streams(channels_into_image(2)), past || host_priors().stream_spread_runs) << cache;
  // 8/3 MiB a thread: below the 4 MiB that spread runs must write per thread.
  EXPECT_EQ(streams(channels_into_image(3)), past) << cache;
}

TEST(StreamingChoice, TransposesStreamFromFourMebibytes) {
  EXPECT_TRUE(streams(describe("f32[1024,1024]{1,0}", "f32[1024,1024]{0,1}", {})));
  EXPECT_FALSE(streams(describe("f32[1016,1024]{1,0}", "f32[1016,1024]{0,1}", {})));
}

TEST(StreamingChoice, AnExplicitThresholdDecidesForEveryKernel) {
  EXPECT_TRUE(streams(rows_into_tiles(1024, {.streaming_bytes = 0})));
  EXPECT_TRUE(streams(rows_into_tiles(8, {.streaming_bytes = 0})));
  EXPECT_TRUE(streams(rows_into_tiles(1024, {.streaming_bytes = int64_t{4} << 20})));
  EXPECT_FALSE(streams(rows_into_tiles(1016, {.streaming_bytes = int64_t{4} << 20})));
  EXPECT_FALSE(streams(describe("f32[1024,1024]{1,0}", "f32[1024,1024]{0,1}",
                                {.streaming_bytes = int64_t{8} << 20})));
}

}  // namespace
}  // namespace tessera::relayout
