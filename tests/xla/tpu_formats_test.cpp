// The TPU formats of the tiled layout spec's "Examples of tiling formats", as named examples.
#include <gtest/gtest.h>

#include <vector>

#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::xla {
namespace {

TiledLayout compile_notation(const char* text) {
  return TiledLayout(parse_shape(text));
}
int64_t at(const TiledLayout& layout, std::vector<int64_t> index) {
  return layout.index_map().linear_index(index);
}

// 1. Untiled: row-major, as in C++.
TEST(ExamplesOfTilingFormats, Untiled) {
  const TiledLayout layout = compile_notation("f32[3,5]{1,0}");
  EXPECT_EQ(at(layout, {2, 3}), 13);
  EXPECT_EQ(layout.size_bytes(), 60);
  EXPECT_EQ(at(compile_notation("f32[3,5]{0,1}"), {2, 3}), 11);  // column-major
}

// 2. TPU tile format: 8x128 tiles of 32-bit values, whole tiles even for a ragged shape.
TEST(ExamplesOfTilingFormats, Tpu8x128) {
  const TiledLayout layout = compile_notation("f32[9,129]{1,0:T(8,128)}");
  EXPECT_EQ(layout.physical_dims(), (std::vector<int64_t>{2, 2, 8, 128}));
  EXPECT_EQ(layout.size_bytes(), 2 * 2 * 8 * 128 * 4);
  EXPECT_EQ(at(layout, {0, 128}), 1024);  // second tile of the first tile row
  EXPECT_EQ(at(layout, {8, 0}), 2048);
}

// 3. Small tile format: a second-minor size of 1-2 uses 2x128 tiles, 3-4 uses 4x128.
TEST(ExamplesOfTilingFormats, SmallTiles2x128And4x128SaveMemory) {
  EXPECT_EQ(compile_notation("f32[2,128]{1,0:T(2,128)}").size_bytes(), 1024);
  EXPECT_EQ(compile_notation("f32[2,128]{1,0:T(8,128)}").size_bytes(), 4096);
  EXPECT_EQ(compile_notation("f32[3,128]{1,0:T(4,128)}").size_bytes(), 2048);
  EXPECT_EQ(compile_notation("f32[5,2,128]{2,1,0:T(2,128)}").size_bytes(), 5 * 1024);
}

// 4. 16-bit format (8,128)(2,1): an element of an even row and the one below it form one
// 32-bit word.
TEST(ExamplesOfTilingFormats, Bf16PacksRowPairs) {
  const TiledLayout layout = compile_notation("bf16[16,256]{1,0:T(8,128)(2,1)}");
  EXPECT_EQ(at(layout, {0, 0}), 0);
  EXPECT_EQ(at(layout, {1, 0}), 1);
  EXPECT_EQ(at(layout, {0, 1}), 2);
  EXPECT_EQ(at(layout, {3, 5}), 128 * 2 + 5 * 2 + 1);
  EXPECT_EQ(at(layout, {0, 128}), 1024);
  EXPECT_EQ(layout.size_bytes(), 16 * 256 * 2);
}

// 5. Alternative 16-bit format (8,128)(2,1,1,1): elements at the same place of two vertically
// adjacent 8x128 tiles form one 32-bit word.
TEST(ExamplesOfTilingFormats, AlternativeBf16PacksTilePairs) {
  const TiledLayout layout = compile_notation("bf16[32,256]{1,0:T(8,128)(2,1,1,1)}");
  EXPECT_EQ(at(layout, {0, 0}), 0);
  EXPECT_EQ(at(layout, {8, 0}), 1);
  EXPECT_EQ(at(layout, {0, 1}), 2);
  EXPECT_EQ(at(layout, {1, 0}), 256);
  EXPECT_EQ(layout.size_bytes(), 32 * 256 * 2);
}

// 6. 8-bit format (8,128)(4,1): four rows' elements share one 32-bit word.
TEST(ExamplesOfTilingFormats, Int8PacksFourRows) {
  const TiledLayout layout = compile_notation("s8[8,128]{1,0:T(8,128)(4,1)}");
  for (int64_t r = 0; r < 4; ++r) EXPECT_EQ(at(layout, {r, 0}), r);
  EXPECT_EQ(at(layout, {0, 1}), 4);
  EXPECT_EQ(at(layout, {4, 0}), 512);
}

// 7. 1-bit format (32,128)(32,1) with E(1): 32 rows of booleans in one 32-bit word, instead of
// today's 4 bytes per pred (E(32)).
TEST(ExamplesOfTilingFormats, PredOneBitPacksThirtyTwoRows) {
  const TiledLayout packed = compile_notation("pred[32,128]{1,0:T(32,128)(32,1)E(1)}");
  for (int64_t r = 0; r < 32; ++r) EXPECT_EQ(at(packed, {r, 0}), r);
  EXPECT_EQ(at(packed, {0, 1}), 32);
  EXPECT_EQ(packed.size_bytes(), 32 * 128 / 8);
  EXPECT_EQ(compile_notation("pred[32,128]{1,0:T(8,128)E(32)}").size_bytes(), 32 * 128 * 4);
}

}  // namespace
}  // namespace tessera::xla
