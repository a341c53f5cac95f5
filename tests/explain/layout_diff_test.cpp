// diff_layouts: sides written as XLA notation, NPU operands and JAX reprs; sizes, padding, the
// differences in notation, the summary by tile, the plan and its cost.
#include "tessera/explain/layout_diff.h"

#include <gtest/gtest.h>

#include "tessera/error.h"

namespace tessera::explain {
namespace {

TEST(LayoutDiff, RowMajorToTiled) {
  const LayoutDiff d = diff_layouts("f32[4,256]{1,0}", "f32[4,256]{1,0:T(8,128)}", {});
  EXPECT_EQ(d.moved.elements, 1024);
  EXPECT_EQ(d.moved.moved, 896);
  EXPECT_EQ(d.a.size_bytes, 4096);
  EXPECT_EQ(d.a.padding_bytes, 0);
  EXPECT_EQ(d.b.size_bytes, 8192);
  EXPECT_EQ(d.b.padding_bytes, 4096);
  EXPECT_EQ(d.b.tile, "(8,128)");
  ASSERT_EQ(d.differences.size(), 1u);
  EXPECT_EQ(d.differences[0].what, "tiles");
  EXPECT_EQ(d.differences[0].b, "T(8,128)");
  // Two (8,128) tiles of b over 4 rows: the first keeps row 0, the second moves everything.
  ASSERT_TRUE(d.tiles);
  EXPECT_EQ(d.tiles->side, "b");
  EXPECT_EQ(d.tiles->blocks, 2);
  EXPECT_EQ(d.tiles->partly_moved, 1);
  EXPECT_EQ(d.tiles->moved, 1);
  EXPECT_FALSE(d.kernels.empty());
  EXPECT_EQ(d.cost.bytes_read, 4096);
  EXPECT_EQ(d.cost.bytes_written, 8192);
  EXPECT_FALSE(d.cost.measured);
  EXPECT_NE(d.cost.basis.find("estimate"), std::string::npos);
}

TEST(LayoutDiff, MeasuredCostRunsThePlan) {
  const LayoutDiff d =
      diff_layouts("f32[64,64]{1,0}", "f32[64,64]{0,1}", {.measure = true, .threads = 1});
  EXPECT_TRUE(d.cost.measured);
  EXPECT_GT(d.cost.seconds, 0);
  EXPECT_EQ(d.moved.stayed, 64);
}

TEST(LayoutDiff, JaxReprsTakeTheArrayFromTheOtherSide) {
  const LayoutDiff d =
      diff_layouts("f32[8,256]{1,0}", "Layout(major_to_minor=(0, 1), tiling=((8, 128),))", {});
  EXPECT_EQ(d.b.layout, "f32[8,256]{1,0:T(8,128)}");
  EXPECT_FALSE(d.b.note.empty());
  const LayoutDiff both =
      diff_layouts("Layout(major_to_minor=(1, 0), tiling=())",
                   "Layout(major_to_minor=(0, 1), tiling=())", {.shape = "bf16[3,5]"});
  EXPECT_EQ(both.a.layout, "bf16[3,5]{0,1}");
  EXPECT_EQ(both.b.layout, "bf16[3,5]{1,0}");
  EXPECT_THROW(diff_layouts("Layout(major_to_minor=(0,), tiling=())",
                            "Layout(major_to_minor=(0,), tiling=())", {}),
               Error);
}

TEST(LayoutDiff, NpuOperandAgainstSystemMemory) {
  const LayoutDiff d =
      diff_layouts("f32[1,8,2,4]{3,2,1,0}", "npu:npus=4,lmem=1024,align=64:1,8,2,4:f32:0", {});
  EXPECT_EQ(d.b.family, "npu");
  EXPECT_EQ(d.b.size_bytes, 4096);  // the whole local memory image
  EXPECT_EQ(d.b.data_bytes, 256);
  EXPECT_EQ(d.moved.stayed, 8);
  ASSERT_EQ(d.differences.size(), 1u);
  EXPECT_EQ(d.differences[0].what, "family");
}

TEST(LayoutDiff, TargetTilesSidesWrittenWithoutTiles) {
  const LayoutDiff d =
      diff_layouts("f32[16,256]", "f32[16,256]{0,1}", {.target = tpu::parse_tpu_target("tpu-v5e")});
  EXPECT_NE(d.a.layout.find(":T("), std::string::npos);
  EXPECT_NE(d.b.layout.find(":T("), std::string::npos);
}

TEST(LayoutDiff, DifferentArraysAreRefused) {
  EXPECT_THROW(diff_layouts("f32[4,256]{1,0}", "bf16[4,256]{1,0}", {}), Error);
  EXPECT_THROW(diff_layouts("f32[4,256]{1,0}", "f32[256,4]{1,0}", {}), Error);
  EXPECT_THROW(diff_layouts("f32[4,256]{1,0}", "npu:bogus", {}), Error);
}

TEST(LayoutDiff, NotationDifferencesNameEachProperty) {
  const auto d = notation_differences(xla::Shape{ElementType::kF32, {4, 8}, {{1, 0}, {}, 1, 0, 0}},
                                      xla::Shape{ElementType::kF32, {4, 8}, {{0, 1}, {}, 4, 0, 1}});
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].what, "order");
  // Shapes of different ranks (XLA's shape check compares two arrays): no element is assumed.
  const auto ranks = notation_differences(xla::Shape{ElementType::kF32, {}, {}},
                                          xla::Shape{ElementType::kF32, {4}, {{0}, {}, 1, 0, 0}});
  ASSERT_EQ(ranks.size(), 1u);
  EXPECT_EQ(ranks[0].what, "order");
  EXPECT_EQ(d[1].what, "memory_space");
  EXPECT_EQ(d[2].what, "tail_alignment");
}

}  // namespace
}  // namespace tessera::explain
