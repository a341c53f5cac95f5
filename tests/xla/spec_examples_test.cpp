// Every number in the tiled layout spec, named after its section.
#include <gtest/gtest.h>

#include <vector>

#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::xla {
namespace {

TiledLayout compile(const char* text) {
  return TiledLayout(parse_shape(text));
}

int64_t index_of(const char* text, std::vector<int64_t> index) {
  const TiledLayout layout = compile(text);
  const int64_t offset = layout.index_map().linear_index(index);
  EXPECT_EQ(offset, layout.spec_linear_index(index)) << text;
  return offset;
}

// "Linear index formulas for tiling given a shape and a tile": element (2,3) of F32[3,5] with
// 2x2 tiles is at 17; tile index bounds (2,3), tile (2,2).
TEST(LinearIndexFormulas, Figure1ElementTwoThreeIsSeventeen) {
  EXPECT_EQ(index_of("F32[3,5]{1,0:T(2,2)}", {2, 3}), 17);
  const TiledLayout layout = compile("F32[3,5]{1,0:T(2,2)}");
  EXPECT_EQ(layout.physical_dims(), (std::vector<int64_t>{2, 3, 2, 2}));
  EXPECT_EQ(layout.physical_elements(), 24);
  EXPECT_EQ(layout.logical_elements(), 15);
  EXPECT_EQ(layout.size_bytes(), 96);
}

// "Tiling as pad-reshape-transpose": pad to (4,6), reshape to (2,2,3,2), transpose to (2,3,2,2).
TEST(TilingAsPadReshapeTranspose, Figure1Steps) {
  const TiledLayout layout = compile("F32[3,5]{1,0:T(2,2)}");
  ASSERT_EQ(layout.steps().size(), 1u);
  const TilingStep& step = layout.steps()[0];
  EXPECT_EQ(step.padded_dims, (std::vector<int64_t>{4, 6}));
  EXPECT_EQ(step.reshaped_dims, (std::vector<int64_t>{2, 2, 3, 2}));
  EXPECT_EQ(step.output_dims, (std::vector<int64_t>{2, 3, 2, 2}));
}

// "Repeated tiling", Figure 2: a 4x8 array tiled by (2,4) then (2,1). Within a 2x4 tile the
// 2x1 tiles pair an element with the one below it.
TEST(RepeatedTiling, Figure2Offsets) {
  const char* shape = "f32[4,8]{1,0:T(2,4)(2,1)}";
  // Row 0 and row 1 of the first 2x4 tile interleave: (0,c) -> 2c, (1,c) -> 2c+1.
  for (int64_t c = 0; c < 4; ++c) {
    EXPECT_EQ(index_of(shape, {0, c}), 2 * c);
    EXPECT_EQ(index_of(shape, {1, c}), 2 * c + 1);
  }
  EXPECT_EQ(index_of(shape, {0, 4}), 8);   // second tile of the first tile row
  EXPECT_EQ(index_of(shape, {2, 0}), 16);  // first tile of the second tile row
  EXPECT_EQ(index_of(shape, {3, 7}), 31);
  EXPECT_EQ(compile(shape).physical_dims(), (std::vector<int64_t>{2, 2, 1, 4, 2, 1}));
}

// "Combining dimensions using tiles": F32[2,7,8,11,10]{4,3,2,1,0} with tile (*,*,2,*,3)
// combines into F32[112,110] before tiling by (2,3).
TEST(CombiningDimensions, FiveDimsIntoTwo) {
  const TiledLayout layout = compile("F32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}");
  ASSERT_EQ(layout.steps().size(), 1u);
  EXPECT_EQ(layout.steps()[0].combined_dims, (std::vector<int64_t>{112, 110}));
  EXPECT_EQ(layout.physical_dims(), (std::vector<int64_t>{56, 37, 2, 3}));
  // Element (1,6,7,10,9) is combined row 1*56+6*8+7 = 111 and column 10*10+9 = 109:
  // tile index (55,36) in a (56,37) grid of 2x3 tiles, within-tile index (1,1).
  EXPECT_EQ(index_of("F32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}", {1, 6, 7, 10, 9}),
            (55 * 37 + 36) * 6 + 1 * 3 + 1);
}

// "Examples of tiling formats", 5: BF16[32,256] with (8,128)(2,1,1,1) tiles into (4,2,8,128)
// and then (2,2,8,128,2,1,1,1).
TEST(ExamplesOfTilingFormats, AlternativeSixteenBitShapes) {
  const TiledLayout layout = compile("bf16[32,256]{1,0:T(8,128)(2,1,1,1)}");
  ASSERT_EQ(layout.steps().size(), 2u);
  EXPECT_EQ(layout.steps()[0].output_dims, (std::vector<int64_t>{4, 2, 8, 128}));
  EXPECT_EQ(layout.physical_dims(), (std::vector<int64_t>{2, 2, 8, 128, 2, 1, 1, 1}));
}

// The red dot of Figure 4: (6,5) of an 8x8 array tiled (2,4)(2,1,1,1) is at 51.
TEST(ExamplesOfTilingFormats, AlternativeSixteenBitRedDotIsFiftyOne) {
  EXPECT_EQ(index_of("f32[8,8]{1,0:T(2,4)(2,1,1,1)}", {6, 5}), 51);
  const TiledLayout layout = compile("f32[8,8]{1,0:T(2,4)(2,1,1,1)}");
  EXPECT_EQ(layout.steps()[0].output_dims, (std::vector<int64_t>{4, 2, 2, 4}));
}

}  // namespace
}  // namespace tessera::xla
