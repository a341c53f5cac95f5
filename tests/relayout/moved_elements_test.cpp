// count_moved_elements: the closed form over the common refinement against a walk over every
// element, on worked examples, random layout pairs (XLA and NPU) and arrays too large to walk.
#include "tessera/relayout/moved_elements.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <random>

#include "support/random_layouts.h"
#include "tessera/error.h"
#include "tessera/relayout/layout_operand.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::relayout {
namespace {

// The reference: every element's bit position on both sides.
int64_t stayed_by_walking(const IndexMap& a, const IndexMap& b) {
  int64_t stayed = 0;
  std::vector<int64_t> index(a.dims().size(), 0);
  for (int64_t n = 0; n < a.logical_elements(); ++n) {
    stayed += element_stays(a, b, index);
    for (std::size_t k = index.size(); k-- > 0;) {
      if (++index[k] < a.dims()[k]) break;
      index[k] = 0;
    }
  }
  return stayed;
}

MovedElements count(const std::string& a, const std::string& b) {
  return count_moved_elements(*parse_layout_operand(a).map, *parse_layout_operand(b).map);
}

TEST(MovedElements, RowMajorToTiledKeepsTheFirstTileRow) {
  // Row 0's first 128 values start both buffers; every other element is 128 further when tiled.
  const MovedElements m = count("f32[4,256]{1,0}", "f32[4,256]{1,0:T(8,128)}");
  EXPECT_EQ(m.elements, 1024);
  EXPECT_EQ(m.stayed, 128);
  EXPECT_EQ(m.moved, 896);
  EXPECT_NE(m.method.find("closed form"), std::string::npos);
}

TEST(MovedElements, TransposeKeepsTheElementsWhoseOffsetsAgree) {
  // r*5 + c == c*3 + r: (0,0), (1,2), (2,4).
  EXPECT_EQ(count("f32[3,5]{1,0}", "f32[3,5]{0,1}").stayed, 3);
  EXPECT_EQ(count("f32[64,64]{1,0}", "f32[64,64]{0,1}").stayed, 64);  // the diagonal
  EXPECT_EQ(count("f32[8,128]{1,0:T(8,128)}", "f32[8,128]{1,0}").moved, 0);
}

TEST(MovedElements, PackingTilesMatchTheWalk) {
  // (2,1) interleaves rows 2i and 2i+1 of each (8,128) tile: few elements keep their place.
  const LayoutOperand packed = parse_layout_operand("bf16[16,256]{1,0:T(8,128)(2,1)}");
  const LayoutOperand plain = parse_layout_operand("bf16[16,256]{1,0:T(8,128)}");
  const int64_t stayed = count_moved_elements(*packed.map, *plain.map).stayed;
  EXPECT_EQ(stayed, stayed_by_walking(*packed.map, *plain.map));
  EXPECT_LT(stayed, 4096 / 8);
}

TEST(MovedElements, LargeArraysAreCountedInClosedForm) {
  // f32[65536,65536] (2^32 elements): row r = 8R + s, column c = 128C + t stays when
  // 896 C = 65408 s, i.e. C = 73 s: 8 tiles per tile row, 128 values each, 8192 tile rows.
  const MovedElements m = count("f32[65536,65536]{1,0}", "f32[65536,65536]{1,0:T(8,128)}");
  EXPECT_EQ(m.elements, int64_t{1} << 32);
  EXPECT_EQ(m.stayed, 8192 * 8 * 128);
  // A transpose of 2^34 elements: the diagonal.
  EXPECT_EQ(count("bf16[131072,131072]{1,0}", "bf16[131072,131072]{0,1}").stayed, 131072);
}

TEST(MovedElements, SubByteElementsCompareTheirBitPositions) {
  // s4 in 4 bits against s4 in a byte: only element 0 starts at bit 0 of both.
  EXPECT_EQ(count("s4[16]{0:E(4)}", "s4[16]{0}").stayed, 1);
  EXPECT_EQ(count("pred[64]{0:E(1)}", "pred[64]{0:E(1)}").moved, 0);
}

TEST(MovedElements, NpuTensorsAgainstSystemMemory) {
  // NCHW in system memory against the same tensor at local memory address 0 of BM1684-like
  // NPUs: channel 0 of batch 0 is where it was, the rest spreads over the NPUs.
  const std::string npu = "npu:npus=4,lmem=1024,align=64:1,8,2,4:f32:0";
  const std::string plain = "f32[1,8,2,4]{3,2,1,0}";
  const LayoutOperand a = parse_layout_operand(plain);
  const LayoutOperand b = parse_layout_operand(npu);
  EXPECT_EQ(count_moved_elements(*a.map, *b.map).stayed, stayed_by_walking(*a.map, *b.map));
  EXPECT_EQ(count_moved_elements(*a.map, *b.map).stayed, 8);
}

TEST(MovedElements, DifferentArraysAreRefused) {
  EXPECT_THROW(count("f32[4,256]{1,0}", "f32[256,4]{1,0}"), Error);
}

TEST(MovedElementsProperty, RandomXlaPairsMatchTheWalk) {
  std::mt19937_64 rng(4343);
  test_support::RandomLayoutOptions options;
  options.max_physical_elements = 1 << 12;
  int closed = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const xla::Shape a = test_support::random_shape(rng, options);
    const xla::Shape b = test_support::random_layout_of(rng, a, options);
    const xla::TiledLayout la(a), lb(b);
    const MovedElements m = count_moved_elements(la.index_map(), lb.index_map());
    const std::string what = xla::print_shape(a) + " -> " + xla::print_shape(b);
    ASSERT_EQ(m.stayed, stayed_by_walking(la.index_map(), lb.index_map())) << what;
    ASSERT_EQ(m.moved + m.stayed, la.logical_elements()) << what;
    closed += m.method.starts_with("closed form");
  }
  EXPECT_GT(closed, 300);  // most random pairs have a common refinement
}

TEST(MovedElementsProperty, RandomNpuTensorsMatchTheWalk) {
  std::mt19937_64 rng(2506);
  const char* layouts[] = {"aligned", "compact"};
  int compared = 0;
  for (int trial = 0; trial < 120; ++trial) {
    const int64_t n = 1 + static_cast<int64_t>(rng() % 3), c = 1 + static_cast<int64_t>(rng() % 9);
    const int64_t h = 1 + static_cast<int64_t>(rng() % 5), w = 1 + static_cast<int64_t>(rng() % 7);
    const int64_t address =
        static_cast<int64_t>(rng() % 4) * 1024 + static_cast<int64_t>(rng() % 4) * 64;
    const std::string dims = fmt::format("{},{},{},{}", n, c, h, w);
    const std::string npu = fmt::format("npu:npus=4,lmem=1024,align=64:{}:f32:{}:{}", dims, address,
                                        layouts[rng() % 2]);
    const std::string order = rng() % 2 ? "{3,2,1,0}" : "{1,3,2,0}";
    const std::string xla = fmt::format("f32[{}]{}", dims, order);
    LayoutOperand a;
    try {
      a = parse_layout_operand(npu);
    } catch (const Error&) {
      continue;  // past the end of local memory: not a layout
    }
    const LayoutOperand b = parse_layout_operand(rng() % 3 ? xla : npu);
    ASSERT_EQ(count_moved_elements(*a.map, *b.map).stayed, stayed_by_walking(*a.map, *b.map))
        << npu << " -> " << b.text;
    ++compared;
  }
  EXPECT_GT(compared, 60);
}

}  // namespace
}  // namespace tessera::relayout
