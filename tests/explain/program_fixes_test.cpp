// Fixes a person can apply (issue 11): kinds, grouping, and ranking against a brute force.
#include "tessera/explain/program_fixes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>

#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::explain {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

int64_t tpu_size(xla::Shape shape) {
  shape.layout.tiles.clear();
  return xla::TiledLayout(apply_target(std::move(shape), Target::kTpu)).size_bytes();
}

TEST(ProgramFixes, BuiltInExampleReshapesTo512MiBWithoutRepetition) {
  const xla::Shape shape = apply_target(xla::parse_shape("s32[2048,1,128,128,4]"), Target::kTpu);
  const auto fixes =
      program_fixes(shape, 16 * 1024 * kMiB, Target::kTpu, PredStorage::kFourBytes, 10);
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
  const xla::Shape pred = apply_target(xla::parse_shape("pred[64,256]"), Target::kTpu);
  for (const auto& f : program_fixes(pred, 64 * 256 * 4, Target::kTpu, PredStorage::kFourBytes, 10))
    EXPECT_NE(f.kind, "storage");
}

TEST(ProgramFixes, TransposeCause) {
  EXPECT_EQ(
      transpose_cause(xla::parse_shape("f32[2,3,4]{1,2,0}")),
      "minor_to_major {1,2,0} is what jnp.transpose(x, (0, 2, 1)) of a row-major array gives");
  EXPECT_EQ(transpose_cause(xla::parse_shape("f32[2,3]")), "");
}

// The best fix is the smallest of every order and every free reshape, computed here directly.
TEST(ProgramFixes, RankingMatchesBruteForce) {
  std::mt19937 random(11);
  const std::vector<int64_t> sizes = {1, 2, 3, 4, 7, 8, 100, 128, 130, 256};
  for (int trial = 0; trial < 60; ++trial) {
    const int rank = 2 + static_cast<int>(random() % 3);
    xla::Shape shape;
    shape.element_type = trial % 2 ? ElementType::kS32 : ElementType::kBF16;
    for (int d = 0; d < rank; ++d) shape.dimensions.push_back(sizes[random() % sizes.size()]);
    shape.layout = xla::Layout::descending(rank);
    shape = apply_target(shape, Target::kTpu);
    const int64_t current = xla::TiledLayout(shape).size_bytes();
    int64_t best = current;
    std::vector<int64_t> order(rank);
    std::iota(order.begin(), order.end(), 0);
    do {
      xla::Shape other = shape;
      other.layout.minor_to_major = order;
      best = std::min(best, tpu_size(other));
    } while (std::next_permutation(order.begin(), order.end()));
    const int64_t elements = std::accumulate(shape.dimensions.begin(), shape.dimensions.end(),
                                             int64_t{1}, std::multiplies<>());
    for (int d = 0; d + 1 < rank; ++d) {  // row-major: merging d and d+1 moves no data
      xla::Shape merged = shape;
      merged.dimensions[d] *= merged.dimensions[d + 1];
      merged.dimensions.erase(merged.dimensions.begin() + d + 1);
      merged.layout = xla::Layout::descending(rank - 1);
      best = std::min(best, tpu_size(merged));
    }
    if (elements % 128 == 0 && shape.dimensions.back() != 128) {
      xla::Shape lanes = shape;
      lanes.dimensions = {elements / 128, 128};
      lanes.layout = xla::Layout::descending(2);
      best = std::min(best, tpu_size(lanes));
    }
    const auto fixes = program_fixes(shape, current, Target::kTpu, PredStorage::kFourBytes, 10);
    const std::string text = xla::print_shape(shape);
    if (best == current) {
      EXPECT_TRUE(fixes.empty()) << text;
      continue;
    }
    ASSERT_FALSE(fixes.empty()) << text;
    EXPECT_EQ(fixes[0].size_bytes, best) << text;
    for (std::size_t i = 1; i < fixes.size(); ++i) {
      EXPECT_LE(fixes[i - 1].size_bytes, fixes[i].size_bytes) << text;
    }
    for (const auto& f : fixes) EXPECT_GT(f.bytes_saved, 0) << text;
  }
}

}  // namespace
}  // namespace tessera::explain
