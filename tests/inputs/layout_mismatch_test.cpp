// find_layout_mismatches on the messages of tests/inputs/fixtures/layout_errors: public ones
// (pytorch/xla#8732, vllm-project/tpu-inference#2506, pytorch/xla#6090) and the real TPU
// compiler's (tools/tpu_oracle/pallas_layout_errors.py).
#include "tessera/inputs/layout_mismatch.h"

#include <gtest/gtest.h>

#include "support/fixtures.h"

namespace tessera::inputs {
namespace {

LayoutMismatch only(const std::string& fixture) {
  const auto found = find_layout_mismatches(test_support::read_fixture("layout_errors/" + fixture));
  EXPECT_EQ(found.size(), 1u) << fixture;
  return found.empty() ? LayoutMismatch{} : found.front();
}

TEST(LayoutMismatch, MosaicsOlderWordingNamesExpectedAndGot) {
  const LayoutMismatch m = only("pytorch_xla_8732.txt");
  EXPECT_EQ(m.source, "mosaic_operand");
  EXPECT_EQ(m.operand, 3);
  EXPECT_EQ(m.shape, "f32[16,3072]");
  EXPECT_EQ(m.expected.layout, "f32[16,3072]{1,0:T(128)S(1)}");
  EXPECT_EQ(m.actual.layout, "f32[16,3072]{1,0:T(8,128)S(1)}");
  EXPECT_EQ(m.expected.role, "Mosaic kernel");
  EXPECT_EQ(m.actual.role, "XLA");
  EXPECT_EQ(m.expected.size_bytes, 16 * 3072 * 4);
  ASSERT_EQ(m.differences.size(), 1u);
  EXPECT_EQ(m.differences[0].what, "tiles");
  ASSERT_TRUE(m.diff);
  EXPECT_GT(m.diff->moved.moved, 0);
  EXPECT_FALSE(m.causes.empty());
  EXPECT_EQ(m.line, 3);
}

TEST(LayoutMismatch, MosaicsNewerWordingIsAnEmptyOperand) {
  const LayoutMismatch m = only("tpu_inference_2506.txt");
  EXPECT_EQ(m.operand, 9);
  EXPECT_EQ(m.expected.layout, "s32[0]{0:T(128)S(1)}");
  EXPECT_EQ(m.actual.layout, "s32[0]{0:S(1)}");
  EXPECT_EQ(m.expected.tiles, "T(128)");
  EXPECT_EQ(m.actual.tiles, "none");
  EXPECT_EQ(m.expected.memory_space, 1);
  ASSERT_FALSE(m.causes.empty());
  EXPECT_NE(m.causes[0].find("no elements"), std::string::npos);
}

TEST(LayoutMismatch, EveryCompilerMessageIsDecoded) {
  for (const char* gen : {"v5e", "v6e"}) {
    for (const char* operand :
         {"f32_0x128_vmem", "bf16_0x256_vmem", "s8_0x128_vmem", "f32_4x0x128_vmem", "s32_0_smem"}) {
      const LayoutMismatch m = only(std::string("pallas_") + gen + "_" + operand + ".txt");
      EXPECT_EQ(m.source, "mosaic_operand") << operand;
      EXPECT_EQ(m.operand, 1) << operand;
      EXPECT_TRUE(m.error.empty()) << m.error;
      EXPECT_EQ(m.actual.tiles, "none") << operand;
      EXPECT_NE(m.expected.tiles, "none") << operand;
      ASSERT_FALSE(m.fixes.empty()) << operand;
    }
  }
}

TEST(LayoutMismatch, XlasShapeCheckComparesTwoArrays) {
  const LayoutMismatch m = only("pytorch_xla_6090.txt");
  EXPECT_EQ(m.source, "xla_shape_check");
  EXPECT_EQ(m.expected.layout, "f32[20,64]{1,0}");
  EXPECT_EQ(m.actual.layout, "f32[64,20]{1,0:T(8,128)}");
  ASSERT_FALSE(m.differences.empty());
  EXPECT_EQ(m.differences[0].what, "dims");
  EXPECT_FALSE(m.diff);
  EXPECT_NE(m.causes.at(0).find("different arrays"), std::string::npos);
}

TEST(LayoutMismatch, UnreadableLayoutsAreReportedNotThrown) {
  const auto found = find_layout_mismatches(
      "XLA layout ({0:T(0)}) does not match Mosaic layout ({0:T(128)}) for an operand of shape "
      "s32[4].\nnothing here\n");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_FALSE(found[0].error.empty());
  EXPECT_TRUE(find_layout_mismatches("expected {1,0}, got").empty());
}

}  // namespace
}  // namespace tessera::inputs
