// Which outputs are written with non-temporal stores (RelayoutOptions::streaming_bytes): runs of
// whole lines only when what they write would not stay in the last-level cache, transposes from
// 4 MiB, and everything the caller asks for. describe() says "streaming" for each kernel that does.
#include <gtest/gtest.h>

#include <string>

#include "relayout/cache_size.h"
#include "tessera/relayout/layout_operand.h"
#include "tessera/relayout/relayout_plan.h"

namespace tessera::relayout {
namespace {

std::string describe(const std::string& from, const std::string& to, RelayoutOptions options) {
  const LayoutOperand source = parse_layout_operand(from);
  const LayoutOperand destination = parse_layout_operand(to);
  options.threads = 1;
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
