#include "tessera/nearest_name.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tessera {
namespace {

const std::vector<std::string> kCommands = {"index",   "unindex", "info", "npu",      "convert",
                                            "explain", "draw",    "diff", "mismatch", "tune"};

TEST(EditDistance, CountsInsertionsDeletionsSubstitutionsAndSwaps) {
  EXPECT_EQ(edit_distance("info", "info"), 0u);
  EXPECT_EQ(edit_distance("inof", "info"), 1u);  // a swap of two neighbours is one edit
  EXPECT_EQ(edit_distance("--taget", "--target"), 1u);
  EXPECT_EQ(edit_distance("covnert", "convert"), 1u);
  EXPECT_EQ(edit_distance("draww", "draw"), 1u);
  EXPECT_EQ(edit_distance("INFO", "info"), 0u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

TEST(NearestName, SuggestsTheCloseName) {
  EXPECT_EQ(nearest_name("inof", kCommands), "info");
  EXPECT_EQ(nearest_name("expalin", kCommands), "explain");
  EXPECT_EQ(nearest_name("conver", kCommands), "convert");
  EXPECT_EQ(nearest_name("--taget", {"--target", "--json", "--xla-era"}), "--target");
  EXPECT_EQ(nearest_name("--jsn", {"--target", "--json"}), "--json");
}

TEST(NearestName, AcceptsAnAbbreviation) {
  EXPECT_EQ(nearest_name("expl", kCommands), "explain");
  EXPECT_EQ(nearest_name("--xla", {"--target", "--xla-era"}), "--xla-era");
}

TEST(NearestName, SuggestsNothingFarAway) {
  EXPECT_EQ(nearest_name("xyzzy", kCommands), std::nullopt);
  EXPECT_EQ(nearest_name("", kCommands), std::nullopt);
  EXPECT_EQ(nearest_name("f32[3,5]", kCommands), std::nullopt);
  EXPECT_EQ(nearest_name("a", {}), std::nullopt);
}

TEST(NearestName, LongWordsStayCheap) {
  const std::string huge(1 << 20, 'x');
  EXPECT_EQ(nearest_name(huge, kCommands), std::nullopt);
}

}  // namespace
}  // namespace tessera
