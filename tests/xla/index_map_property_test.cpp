// Properties of compiled XLA layouts, checked exhaustively on hundreds of random small layouts:
// the index map is a bijection from logical indices onto the non-padding offsets, its inverse
// undoes it, the digit form agrees with the spec's level-by-level formula, and the division-free
// walker visits the same offsets.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "support/random_layouts.h"
#include "tessera/index_map.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::xla {
namespace {

void check_layout(const Shape& shape) {
  const TiledLayout layout(shape);
  const IndexMap& map = layout.index_map();
  SCOPED_TRACE(print_shape(shape));

  // Forward: every logical index, in the walker's order, lands on a distinct offset.
  std::vector<int> hits(static_cast<std::size_t>(map.size_elements()), 0);
  int64_t visited = 0;
  for (LogicalWalker walk(map); !walk.done(); walk.next()) {
    const auto index = std::vector<int64_t>(walk.index().begin(), walk.index().end());
    const int64_t offset = map.linear_index(index);
    ASSERT_EQ(offset, walk.offset());
    ASSERT_EQ(offset, layout.spec_linear_index(index));
    ASSERT_GE(offset, 0);
    ASSERT_LT(offset, map.size_elements());
    ASSERT_EQ(hits[static_cast<std::size_t>(offset)]++, 0)
        << "two elements share offset " << offset;
    ASSERT_EQ(map.logical_index(offset), index);
    ++visited;
  }
  ASSERT_EQ(visited, map.logical_elements());

  // Inverse: every other offset is padding, by both the digit form and the spec's formula.
  for (int64_t offset = 0; offset < map.size_elements(); ++offset) {
    const auto index = map.logical_index(offset);
    ASSERT_EQ(index, layout.spec_logical_index(offset)) << "offset " << offset;
    ASSERT_EQ(index.has_value(), hits[static_cast<std::size_t>(offset)] == 1)
        << "offset " << offset;
  }

  // The printed form parses back to the same shape.
  ASSERT_EQ(parse_shape(print_shape(shape)), shape);
}

TEST(IndexMapProperties, RandomLayoutsAreBijectionsOntoData) {
  std::mt19937_64 rng(20261121);
  for (int i = 0; i < 400; ++i) check_layout(test_support::random_shape(rng));
}

TEST(IndexMapProperties, RandomLayoutsWithoutCombinedDimsHaveADigitForm) {
  std::mt19937_64 rng(7);
  test_support::RandomLayoutOptions options;
  options.allow_combine = false;
  int with_digits = 0;
  for (int i = 0; i < 200; ++i) {
    const Shape shape = test_support::random_shape(rng, options);
    check_layout(shape);
    with_digits += TiledLayout(shape).index_map().digit_form() != nullptr;
  }
  // Tiles that do not divide an inner tile have no digit form; most random layouts do.
  EXPECT_GT(with_digits, 100);
}

TEST(IndexMapProperties, CombinedDimsWhoseTileDoesNotFactorUseTheGeneralForm) {
  const Shape shape = parse_shape("f32[3,5]{1,0:T(*,2)}");
  EXPECT_EQ(TiledLayout(shape).index_map().digit_form(), nullptr);
  check_layout(shape);
}

TEST(IndexMapProperties, TpuFormatsOnUnevenShapes) {
  for (const char* text :
       {"f32[13,300]{1,0:T(8,128)}", "f32[2,3,130]{2,1,0:T(2,128)}",
        "bf16[17,129]{1,0:T(8,128)(2,1)}", "bf16[32,256]{1,0:T(8,128)(2,1,1,1)}",
        "s8[33,130]{1,0:T(8,128)(4,1)}", "pred[40,130]{1,0:T(32,128)(32,1)E(1)}",
        "f32[5,3,7]{0,2,1:T(4,128)}", "f32[]{:T(256)}", "s4[9,300]{1,0:T(8,128)(2,1)E(4)}"}) {
    check_layout(parse_shape(text));
  }
}

}  // namespace
}  // namespace tessera::xla
