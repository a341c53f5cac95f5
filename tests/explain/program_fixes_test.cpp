// Fixes a person can apply: kinds, grouping, and ranking against a brute force.
#include "tessera/explain/program_fixes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>

#include "explain/test_support.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::explain {
namespace {

// tpu-v3 in era 2020, the era these tests were written for (pred as `pred` says).

TEST(ProgramFixes, BuiltInExampleReshapesTo512MiBWithoutRepetition) {
  const xla::Shape shape = tpu::apply_target(xla::parse_shape("s32[2048,1,128,128,4]"), tpu_2020());
  const auto fixes =
      program_fixes(shape, 16 * 1024 * kMiB, tpu_2020(tpu::PredStorage::kFourBytes), 10, {});
  ASSERT_FALSE(fixes.empty());
  EXPECT_EQ(fixes[0].kind, "reshape");
  EXPECT_EQ(fixes[0].layout, "s32[2048,1,128,512]{3,2,1,0:T(8,128)}");
  EXPECT_EQ(fixes[0].size_bytes, 512 * kMiB);
  EXPECT_EQ(fixes[0].bytes_saved, 16 * 1024 * kMiB - 512 * kMiB);
  EXPECT_EQ(fixes[0].change, "x.reshape(2048, 1, 128, 512)");
  std::set<std::pair<std::string, int64_t>> seen;
  for (const auto& f : fixes) {
    EXPECT_TRUE(seen.insert({f.kind, f.size_bytes}).second) << f.kind << " " << f.size_bytes;
  }
  const auto reorder =
      std::find_if(fixes.begin(), fixes.end(), [](const auto& f) { return f.kind == "reorder"; });
  ASSERT_NE(reorder, fixes.end());
  EXPECT_EQ(reorder->size_bytes, 512 * kMiB);
  EXPECT_FALSE(reorder->alternatives.empty());  // the other orders of the same size, grouped
  EXPECT_NE(reorder->change.find("jnp.transpose(x, ("), std::string::npos);
}

TEST(ProgramFixes, NeverPredStorageTheTargetCannotHold) {
  const xla::Shape pred = tpu::apply_target(xla::parse_shape("pred[64,256]"), tpu_2020());
  for (const auto& f :
       program_fixes(pred, 64 * 256 * 4, tpu_2020(tpu::PredStorage::kFourBytes), 10, {}))
    EXPECT_NE(f.kind, "storage");
}

TEST(ProgramFixes, TransposeCause) {
  EXPECT_EQ(
      transpose_cause(xla::parse_shape("f32[2,3,4]{1,2,0}")),
      "minor_to_major {1,2,0} is what jnp.transpose(x, (0, 2, 1)) of a row-major array gives");
  EXPECT_EQ(transpose_cause(xla::parse_shape("f32[2,3]")), "");
}

// Ranking against a brute force (orders, reshapes and pads): fix_ranking_brute_force_test.cpp.

}  // namespace
}  // namespace tessera::explain
