// find_copies on modules compiled by the real TPU compiler (tests/inputs/fixtures/tpu_hlo,
// tools/tpu_oracle/hlo_programs.py) and on small written ones: every copy, transpose and reshape
// that changes a layout, with its bytes, and nothing that does not.
#include "tessera/inputs/hlo_copies.h"

#include <gtest/gtest.h>

#include "support/fixtures.h"

namespace tessera::inputs {
namespace {

const HloCopy* named(const HloCopies& copies, const std::string& name) {
  for (const HloCopy& c : copies.copies) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

TEST(HloCopies, TransposedResultIsOneCopyOfHalfAMebibyte) {
  // jnp.transpose of f32[512,256]: XLA copies x into {0,1} and bitcasts the copy.
  for (const char* file : {"tpu_hlo/v2_transpose_result.hlo", "tpu_hlo/v5e_transpose_result.hlo",
                           "tpu_hlo/v7x_transpose_result.hlo"}) {
    const HloCopies copies = find_copies(test_support::read_fixture(file));
    ASSERT_EQ(copies.copies.size(), 1u) << file;
    const HloCopy& c = copies.copies[0];
    EXPECT_EQ(c.name, "copy");
    EXPECT_EQ(c.from, "f32[512,256]{1,0:T(8,128)}");
    EXPECT_EQ(c.to, "f32[512,256]{0,1:T(8,128)}");
    EXPECT_EQ(c.bytes, 512 * 256 * 4);
    EXPECT_EQ(c.kind, "relayout");
    EXPECT_NE(c.fix.find("argument x.1"), std::string::npos) << c.fix;
  }
}

TEST(HloCopies, PrefetchesAreMemorySpaceCopiesAndRankedBySize) {
  const HloCopies copies =
      find_copies(test_support::read_fixture("tpu_hlo/v5e_concatenate_minor.hlo"));
  ASSERT_EQ(copies.copies.size(), 3u);
  const HloCopy* prefetch = named(copies, "copy-start");
  ASSERT_NE(prefetch, nullptr);
  EXPECT_EQ(prefetch->kind, "memory_space");
  EXPECT_EQ(prefetch->to, "f32[256,28]{0,1:T(8,128)S(1)}");
  EXPECT_EQ(prefetch->moved_elements, 0);
  const HloCopy* transpose = named(copies, "copy.1");
  ASSERT_NE(transpose, nullptr);
  EXPECT_EQ(transpose->from, "f32[256,28]{0,1:T(8,128)S(1)}");
  EXPECT_EQ(transpose->to, "f32[256,28]{1,0:T(8,128)S(1)}");
  EXPECT_EQ(transpose->kind, "relayout");
  // f32[256,100] padded to 128 lanes is the largest.
  EXPECT_EQ(copies.copies[0].name, "copy");
  EXPECT_EQ(copies.copies[0].bytes, 256 * 128 * 4);
}

TEST(HloCopies, CopiesInsideFusionsNameTheirFusionAndArgument) {
  const HloCopies copies =
      find_copies(test_support::read_fixture("tpu_hlo/v5e_swap_major_dims.hlo"));
  ASSERT_EQ(copies.copies.size(), 1u);
  const HloCopy& c = copies.copies[0];
  EXPECT_EQ(c.name, "copy.3");
  EXPECT_EQ(c.fusion, "fusion");
  EXPECT_EQ(c.bytes, 64 * 128 * 256 * 4);
  // The fused parameter is the entry's argument x: pre-transposing it removes the copy.
  EXPECT_NE(c.fix.find("argument x.1 ('x')"), std::string::npos) << c.fix;
}

TEST(HloCopies, ReshapesAcrossTheMinorDimensionAreRelayouts) {
  const HloCopies copies =
      find_copies(test_support::read_fixture("tpu_hlo/v5e_reshape_minor_split.hlo"));
  ASSERT_EQ(copies.copies.size(), 1u);
  EXPECT_EQ(copies.copies[0].opcode, "reshape");
  EXPECT_EQ(copies.copies[0].to, "f32[64,8,3]{0,2,1:T(4,128)S(1)}");
  EXPECT_GT(copies.copies[0].moved_elements, 0);
  EXPECT_NE(copies.copies[0].fix.find("last dimension"), std::string::npos);
}

TEST(HloCopies, BitcastsAndUnchangedCopiesAreNotCopies) {
  const HloCopies copies = find_copies(R"(HloModule m
ENTRY %main (p: f32[8,128]) -> f32[128,8] {
  %p = f32[8,128]{1,0:T(8,128)} parameter(0)
  %same = f32[8,128]{1,0:T(8,128)} copy(%p)
  %b = f32[128,8]{0,1:T(8,128)} bitcast(%same)
  %t = f32[128,8]{0,1:T(8,128)} transpose(%same), dimensions={1,0}
  %r = f32[1,8,128]{2,1,0:T(8,128)} reshape(%p)
  ROOT %moved = f32[128,8]{1,0:T(8,128)} transpose(%same), dimensions={1,0}
}
)");
  // %t is %same read in another order with the same bytes (a bitcast); %r puts row i of the
  // tiles at the same offsets; %moved changes places.
  ASSERT_EQ(copies.copies.size(), 1u);
  EXPECT_EQ(copies.copies[0].name, "moved");
  EXPECT_EQ(copies.copies[0].from, "f32[8,128]{1,0:T(8,128)}");
  EXPECT_EQ(copies.copies[0].bytes, 128 * 128 * 4);  // f32[128,8] pads 8 lanes to 128
  EXPECT_NE(copies.copies[0].fix.find("returned transposed"), std::string::npos);
}

TEST(HloCopies, TransposesOfUnitDimensionsSuggestAReshape) {
  const HloCopies copies = find_copies(R"(HloModule m
ENTRY %main (p: f32[1,8,128]) -> f32[8,1,128] {
  %p = f32[1,8,128]{2,1,0:T(8,128)} parameter(0)
  ROOT %t = f32[8,1,128]{2,1,0:T(8,128)} transpose(%p), dimensions={1,0,2}
}
)");
  ASSERT_EQ(copies.copies.size(), 1u);
  EXPECT_NE(copies.copies[0].fix.find("jnp.reshape"), std::string::npos);
}

TEST(HloCopies, MalformedModulesWarnAndNeverThrow) {
  const HloCopies copies = find_copies(
      "ENTRY %m {\n  %a = f32[2]{0:T(0)} copy(%b)\n"
      "  %b = f32[2]{0} parameter(0)\n  %c = f32[3]{0} copy(%b)\n"
      "  %t = f32[2]{0} transpose(%b), dimensions={7}\n}\n");
  EXPECT_TRUE(copies.copies.empty());
  EXPECT_FALSE(copies.warnings.empty());
}

}  // namespace
}  // namespace tessera::inputs
