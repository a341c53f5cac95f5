// Suggestion ranking and grouping against a brute force over every permutation, free
// reshape and pad of small shapes, exhaustively: the first fix is the smallest of them all, a pad
// is offered exactly when it beats everything without one, and equivalent layouts are grouped
// (one suggestion per kind and size, every order listed exactly once).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "explain/test_support.h"
#include "tessera/checked_arithmetic.h"
#include "tessera/explain/layout_suggestions.h"
#include "tessera/explain/program_fixes.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::explain {
namespace {

// tpu-v3 in era 2020, the era these tests were written for (pred as `pred` says).
const std::vector<int64_t> kSizes = {1, 2, 3, 5, 8, 100, 130};

int64_t tpu_size(xla::Shape shape) {
  shape.layout.tiles.clear();
  return xla::TiledLayout(tpu::apply_target(std::move(shape), tpu_2020())).size_bytes();
}

xla::Shape row_major(ElementType type, std::vector<int64_t> dims) {
  xla::Shape shape;
  shape.element_type = type;
  shape.layout = xla::Layout::descending(static_cast<int>(dims.size()));
  shape.dimensions = std::move(dims);
  return shape;
}

// Every small row-major shape of rank 2 and 3 over kSizes.
std::vector<std::vector<int64_t>> rank_2_and_3_shapes() {
  std::vector<std::vector<int64_t>> shapes;
  for (int64_t a : kSizes) {
    for (int64_t b : kSizes) {
      shapes.push_back({a, b});
      for (int64_t c : kSizes) shapes.push_back({a, b, c});
    }
  }
  return shapes;
}

// The smallest free reshape of a row-major shape: merging neighbours d, d+1, or rows of 128.
int64_t best_reshape(const xla::Shape& shape) {
  const auto& dims = shape.dimensions;
  int64_t best = INT64_MAX;
  for (std::size_t d = 0; d + 1 < dims.size(); ++d) {
    std::vector<int64_t> merged = dims;
    merged[d] *= merged[d + 1];
    merged.erase(merged.begin() + static_cast<std::ptrdiff_t>(d) + 1);
    best = std::min(best, tpu_size(row_major(shape.element_type, merged)));
  }
  const int64_t elements =
      std::accumulate(dims.begin(), dims.end(), int64_t{1}, std::multiplies<>());
  if (elements % 128 == 0 && dims.back() != 128) {
    best = std::min(best, tpu_size(row_major(shape.element_type, {elements / 128, 128})));
  }
  return best;
}

// The smallest size over every other minor_to_major order.
int64_t best_order(const xla::Shape& shape) {
  std::vector<int64_t> order(shape.dimensions.size());
  std::iota(order.begin(), order.end(), 0);
  int64_t best = INT64_MAX;
  do {
    xla::Shape other = shape;
    other.layout.minor_to_major = order;
    best = std::min(best, tpu_size(other));
  } while (std::next_permutation(order.begin(), order.end()));
  return best;
}

// The smallest array, as it is or reshaped, after rounding one dim up to a multiple of 2, 8 or 128.
int64_t best_pad(const xla::Shape& shape) {
  int64_t best = INT64_MAX;
  for (std::size_t k = 0; k < shape.dimensions.size(); ++k) {
    for (int64_t g : {2, 8, 128}) {
      xla::Shape padded = shape;
      padded.dimensions[k] = round_up(shape.dimensions[k], g, "test");
      if (padded.dimensions[k] == shape.dimensions[k]) continue;
      best = std::min({best, best_reshape(padded), tpu_size(padded)});
    }
  }
  return best;
}

TEST(FixRankingBruteForce, FirstFixIsTheSmallestOfEveryOrderReshapeAndPad) {
  int pads = 0;
  for (ElementType type : {ElementType::kS32, ElementType::kBF16}) {
    for (const auto& dims : rank_2_and_3_shapes()) {
      const xla::Shape shape = tpu::apply_target(row_major(type, dims), tpu_2020());
      const std::string text = xla::print_shape(shape);
      const int64_t current = xla::TiledLayout(shape).size_bytes();
      const int64_t without_pad = std::min({current, best_order(shape), best_reshape(shape)});
      const int64_t pad = best_pad(shape);
      const auto fixes =
          program_fixes(shape, current, tpu_2020(tpu::PredStorage::kFourBytes), 1000, {});
      const auto pad_fix =
          std::find_if(fixes.begin(), fixes.end(), [](auto& f) { return f.kind == "pad"; });
      if (pad < without_pad) {
        ++pads;
        ASSERT_NE(pad_fix, fixes.end()) << text;
        EXPECT_EQ(pad_fix->size_bytes, pad) << text;
        EXPECT_EQ(pad_fix - fixes.begin(), 0) << text;
        EXPECT_EQ(pad_fix->change.rfind("jnp.pad(x, ((0, ", 0), 0u) << pad_fix->change;
      } else {
        EXPECT_EQ(pad_fix, fixes.end()) << text << " " << pad_fix->change;
      }
      const int64_t best = std::min(without_pad, pad);
      if (best == current) {
        EXPECT_TRUE(fixes.empty()) << text;
        continue;
      }
      ASSERT_FALSE(fixes.empty()) << text;
      EXPECT_EQ(fixes[0].size_bytes, best) << text;
      std::set<std::pair<std::string, int64_t>> groups;
      for (std::size_t i = 0; i < fixes.size(); ++i) {
        const auto& f = fixes[i];
        EXPECT_TRUE(groups.insert({f.kind, f.size_bytes}).second) << text << " " << f.kind;
        EXPECT_GT(f.bytes_saved, 0) << text;
        EXPECT_EQ(f.bytes_saved, current - f.size_bytes);
        if (i > 0) {
          EXPECT_LE(fixes[i - 1].size_bytes, f.size_bytes) << text;
        }
        EXPECT_EQ(xla::TiledLayout(xla::parse_shape(f.layout)).size_bytes(), f.size_bytes);
        for (const auto& other : f.alternatives) {
          EXPECT_EQ(xla::TiledLayout(xla::parse_shape(other)).size_bytes(), f.size_bytes) << other;
        }
      }
    }
  }
  EXPECT_GT(pads, 0);  // the brute force does reach shapes where a pad wins
}

// tessera explain SHAPE: the grouped suggestions list every other order exactly once (as a
// suggestion's layout or among its alternatives), each group one size, no two groups alike.
TEST(FixRankingBruteForce, LayoutSuggestionsGroupEveryOrderOnce) {
  for (ElementType type : {ElementType::kS32, ElementType::kS8}) {
    for (const auto& dims : rank_2_and_3_shapes()) {
      const xla::Shape shape = tpu::apply_target(row_major(type, dims), tpu_2020());
      const std::string text = xla::print_shape(shape);
      const int64_t current = xla::TiledLayout(shape).size_bytes();
      // layout text -> size, every other order that takes no more memory (a suggestion never
      // takes more than the array does)
      std::map<std::string, int64_t> orders;
      std::vector<int64_t> order(dims.size());
      std::iota(order.begin(), order.end(), 0);
      do {
        xla::Shape other = shape;
        other.layout.minor_to_major = order;
        other.layout.tiles.clear();
        other = tpu::apply_target(other, tpu_2020());
        const std::string other_text = xla::print_shape(other);
        const int64_t other_bytes = xla::TiledLayout(other).size_bytes();
        if (other_text != text && other_bytes <= current) orders[other_text] = other_bytes;
      } while (std::next_permutation(order.begin(), order.end()));
      const auto suggestions =
          suggest_layouts(shape, current, tpu_2020(tpu::PredStorage::kFourBytes), 1000);
      std::map<std::string, int64_t> listed;
      std::set<int64_t> sizes;
      for (const auto& s : suggestions) {
        EXPECT_EQ(s.kind, "reorder") << text;
        EXPECT_TRUE(sizes.insert(s.size_bytes).second) << text << " repeats " << s.size_bytes;
        EXPECT_TRUE(listed.emplace(s.layout, s.size_bytes).second) << s.layout;
        for (const auto& other : s.alternatives) {
          EXPECT_TRUE(listed.emplace(other, s.size_bytes).second) << other;
        }
      }
      EXPECT_EQ(listed, orders) << text;
      for (std::size_t i = 1; i < suggestions.size(); ++i) {
        EXPECT_LT(suggestions[i - 1].size_bytes, suggestions[i].size_bytes) << text;
      }
    }
  }
}

TEST(FixRankingBruteForce, LimitCountsGroupsNotLayouts) {
  const xla::Shape shape = tpu::apply_target(xla::parse_shape("s32[2048,1,128,128,4]"), tpu_2020());
  const auto one =
      suggest_layouts(shape, int64_t{16} << 30, tpu_2020(tpu::PredStorage::kFourBytes), 1);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].size_bytes, int64_t{512} << 20);
  EXPECT_EQ(one[0].layout, "s32[2048,1,128,128,4]{3,4,2,1,0:T(4,128)}");
  // Every order of 512 MiB is in that one suggestion.
  const auto all =
      suggest_layouts(shape, int64_t{16} << 30, tpu_2020(tpu::PredStorage::kFourBytes), 1000);
  EXPECT_EQ(all[0].alternatives, one[0].alternatives);
  EXPECT_GT(one[0].alternatives.size(), 10u);
}

}  // namespace
}  // namespace tessera::explain
