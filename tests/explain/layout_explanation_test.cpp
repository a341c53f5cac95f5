// The explain numbers for the spec's examples and the padding-heavy TPU shape.
#include "tessera/explain/layout_explanation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "explain/test_support.h"
#include "tessera/error.h"
#include "tessera/xla/notation.h"

namespace tessera::explain {
namespace {

// tpu-v3 in era 2020, the era these tests were written for (pred as `pred` says).
// The suggestion engine under the 2020 era's tiles, with the written order kept.
ExplainOptions era_2020(tpu::PredStorage pred = tpu::PredStorage::kTargetDefault,
                        std::size_t max_suggestions = 10) {
  return ExplainOptions{tpu_2020(pred), max_suggestions};
}

// "Tiled formats", Figure 1: F32[3,5] with 2x2 tiles takes 24 elements, 9 of them padding.
TEST(TiledFormats, Figure1Explained) {
  const auto e = explain_layout("F32[3,5]{1,0:T(2,2)}", {});
  EXPECT_EQ(xla::print_shape(e.layout.shape()), "f32[3,5]{1,0:T(2,2)}");
  EXPECT_EQ(e.logical_bytes, 60);
  EXPECT_EQ(e.layout.size_bytes(), 96);
  EXPECT_DOUBLE_EQ(e.layout.padding_fraction(), 9.0 / 24.0);
  ASSERT_EQ(e.padding.size(), 2u);
  EXPECT_EQ(e.padding[0].dimension, "dim 0");
  EXPECT_EQ(e.padding[0].entry, "second minor");
  EXPECT_EQ(e.padding[0].from, 3);
  EXPECT_EQ(e.padding[0].to, 4);
  EXPECT_EQ(e.padding[1].dimension, "dim 1");
  EXPECT_EQ(e.padding[1].from, 5);
  EXPECT_EQ(e.padding[1].to, 6);
  // f32[3,5]{0,1:T(2,2)} pads 5 -> 6 and 3 -> 4 too: nothing smaller exists.
  for (const auto& s : e.suggestions) EXPECT_GE(s.size_bytes, 96);
  const auto json = explanation_json(e);
  EXPECT_EQ(json["layout"], "f32[3,5]{1,0:T(2,2)}");
  EXPECT_EQ(json["size_bytes"], 96);
  EXPECT_EQ(json["logical_bytes"], 60);
  EXPECT_EQ(json["steps"][0]["output_dims"], (std::vector<int64_t>{2, 3, 2, 2}));
}

// The question from issue trackers: s32[2048,1,128,128,4] takes 32x its size on a TPU because
// its minor dim of 4 is padded to the tile's 128 lanes.
TEST(TpuPadding, WhyThirtyTwoTimes) {
  const auto e = explain_layout("s32[2048,1,128,128,4]{4,3,2,1,0}", {tpu::parse_tpu_target("tpu")});
  EXPECT_EQ(xla::print_shape(e.layout.shape()), "s32[2048,1,128,128,4]{4,3,2,1,0:T(8,128)}");
  EXPECT_EQ(e.logical_bytes, 512 * kMiB);
  EXPECT_EQ(e.layout.size_bytes(), 16 * kGiB);
  EXPECT_DOUBLE_EQ(e.layout.padding_fraction(), 31.0 / 32.0);
  ASSERT_EQ(e.padding.size(), 1u);
  EXPECT_EQ(e.padding[0].text, "dim 4: 4 -> 128 by the minor tile of T(8,128) (level 1), x32");
  EXPECT_DOUBLE_EQ(e.padding[0].factor, 32.0);
  ASSERT_FALSE(e.suggestions.empty());
  EXPECT_EQ(e.suggestions[0].size_bytes, 512 * kMiB);  // an order without padding exists
  EXPECT_EQ(e.suggestions[0].bytes_saved, 16 * kGiB - 512 * kMiB);
  const auto json = explanation_json(e);
  EXPECT_DOUBLE_EQ(json["expansion"].get<double>(), 32.0);
}

TEST(TpuPadding, PaddingAtEveryTileLevelIsNamed) {
  // Level 2 pads the within-tile rows: 3 rows of the (3,4) tile -> 4 by the (2,1) tile.
  const auto e = explain_layout("bf16[3,4]{1,0:T(3,4)(2,1)}", {});
  ASSERT_EQ(e.padding.size(), 1u);
  EXPECT_EQ(e.padding[0].level, 2);
  EXPECT_EQ(e.padding[0].dimension, "dim 0 within tile 1");
  EXPECT_EQ(e.padding[0].from, 3);
  EXPECT_EQ(e.padding[0].to, 4);
  // Combined dims are named together: T(*,4) folds dim 1 into dim 2 (3*5 = 15 -> 16).
  const auto star = explain_layout("f32[2,3,5]{2,1,0:T(*,4)}", {});
  ASSERT_EQ(star.padding.size(), 1u);
  EXPECT_EQ(star.padding[0].dimension, "(dim 1 * dim 2)");
  EXPECT_EQ(star.padding[0].to, 16);
  const auto star2 = explain_layout("f32[2,3,5]{2,1,0:T(*,4,8)}", {});
  ASSERT_EQ(star2.padding.size(), 2u);
  EXPECT_EQ(star2.padding[0].dimension, "(dim 0 * dim 1)");
  EXPECT_EQ(star2.padding[0].from, 6);
}

TEST(TpuPadding, ElementStorageAndTailAlignmentAreSources) {
  const auto pred = explain_layout("pred[8,128]", era_2020());
  ASSERT_EQ(pred.padding.size(), 1u);
  EXPECT_EQ(pred.padding[0].kind, PaddingSource::Kind::kElementStorage);
  EXPECT_EQ(pred.padding[0].to, 32);
  EXPECT_EQ(pred.logical_bytes, 128);
  EXPECT_EQ(pred.layout.size_bytes(), 4096);
  // The 1-bit option is suggested with its saving.
  ASSERT_FALSE(pred.suggestions.empty());
  EXPECT_EQ(pred.suggestions[0].layout, "pred[8,128]{1,0:T(32,128)(32,1)E(1)}");
  EXPECT_EQ(pred.suggestions[0].size_bytes, 512);
  const auto tail = explain_layout("f32[5]{0:L(8)}", {});
  ASSERT_EQ(tail.padding.size(), 1u);
  EXPECT_EQ(tail.padding[0].kind, PaddingSource::Kind::kTailAlignment);
  EXPECT_EQ(tail.padding[0].to, 8);
}

TEST(Suggestions, RankedByBytesSavedAndConsistent) {
  for (const char* shape :
       {"s32[2048,1,128,128,4]", "bf16[3,5,7]", "f32[1,1000]", "s8[2,3,130]", "f32[9,2,3,4,5,6]"}) {
    const auto e = explain_layout(shape, era_2020(tpu::PredStorage::kFourBytes, 1000));
    for (std::size_t i = 0; i < e.suggestions.size(); ++i) {
      const auto& s = e.suggestions[i];
      EXPECT_EQ(s.bytes_saved, e.layout.size_bytes() - s.size_bytes);
      EXPECT_GE(s.bytes_saved, 0) << s.layout;  // a layout that takes more is no suggestion
      EXPECT_NE(s.layout, xla::print_shape(e.layout.shape()));
      if (i > 0) {
        EXPECT_LE(e.suggestions[i - 1].size_bytes, s.size_bytes);
      }
      // Each suggestion is what its own text compiles to.
      EXPECT_EQ(xla::TiledLayout(xla::parse_shape(s.layout)).size_bytes(), s.size_bytes);
    }
  }
  EXPECT_FALSE(explain_layout("s32[2048,1,128,128,4]", era_2020(tpu::PredStorage::kFourBytes, 1000))
                   .suggestions.empty());
  const auto limited =
      explain_layout("s32[2048,1,128,128,4]", era_2020(tpu::PredStorage::kFourBytes, 2));
  EXPECT_EQ(limited.suggestions.size(), 2u);
}

// Property: on random small TPU shapes, the first suggestion is the smallest size over every
// minor_to_major order (brute force), unless the current order is already smallest.
TEST(Suggestions, FirstIsTheBestOrderOnRandomShapes) {
  std::mt19937 rng(7);
  const char* types[] = {"f32", "bf16", "s8", "s4", "pred", "f64"};
  for (int trial = 0; trial < 60; ++trial) {
    const int rank = 2 + static_cast<int>(rng() % 3);
    std::string text = std::string(types[rng() % 6]) + "[";
    for (int i = 0; i < rank; ++i) {
      text += (i ? "," : "") + std::to_string(1 + rng() % 300);
    }
    text += "]";
    const auto e = explain_layout(text, era_2020(tpu::PredStorage::kFourBytes, 1));
    std::vector<int64_t> order(static_cast<std::size_t>(rank));
    std::iota(order.begin(), order.end(), 0);
    int64_t best = e.layout.size_bytes();
    do {
      xla::Shape shape = xla::parse_shape(text);
      shape.layout.minor_to_major = order;
      best = std::min(best, xla::TiledLayout(tpu::apply_target(shape, tpu_2020())).size_bytes());
      if (shape.element_type == ElementType::kPred) {  // the 1-bit option is a suggestion too
        shape.layout.minor_to_major = xla::parse_shape(text).layout.minor_to_major;
        best = std::min(
            best, xla::TiledLayout(tpu::apply_target(shape, tpu_2020(tpu::PredStorage::kOneBit)))
                      .size_bytes());
      }
    } while (std::next_permutation(order.begin(), order.end()));
    // No suggestion: no order takes less or as much (a layout that takes more is none).
    const int64_t first =
        e.suggestions.empty() ? e.layout.size_bytes() : e.suggestions[0].size_bytes;
    EXPECT_EQ(std::min(first, e.layout.size_bytes()), best) << text;
  }
}

TEST(Explain, BadShapesAreErrors) {
  EXPECT_THROW(explain_layout("f32[3,", {}), Error);
  EXPECT_THROW(explain_layout("q32[3]", {}), Error);
  EXPECT_THROW(explain_layout("f32[3]{1}", {}), Error);
}

TEST(Explain, DefaultExamplesRun) {
  const auto examples = default_examples();
  ASSERT_EQ(examples.size(), 3u);
  for (const auto& example : examples) {
    const auto e = explain_layout(example.shape, {tpu::parse_tpu_target(example.target)});
    EXPECT_FALSE(explanation_text(e).empty());
  }
  EXPECT_EQ(human_bytes(96), "96 B");
  EXPECT_EQ(human_bytes(512 * kMiB), "512 MiB");
}

}  // namespace
}  // namespace tessera::explain
