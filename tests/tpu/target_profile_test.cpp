// The TPU target profile: every element class, second-minor sizes 1..9, ranks 0 and 1
// (tiled layout spec, "Examples of tiling formats").
#include "tessera/tpu/target_profile.h"

#include <gtest/gtest.h>

#include "tessera/error.h"
#include "tessera/tpu/profile_2020.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::tpu {
namespace {

// The 2020 era's profile (its alias `tpu` is tpu-v3) unless a test names another generation;
// the 2026 era is compiler_model_test.cpp's.
std::string tpu_layout(const char* shape, PredStorage pred = PredStorage::kTargetDefault) {
  return xla::print_shape(
      apply_target(xla::parse_shape(shape), parse_tpu_target("tpu", XlaEra::k2020, pred)));
}

std::string tiles_for(ElementType type, int64_t second_minor,
                      PredStorage pred = PredStorage::kTargetDefault) {
  const std::vector<int64_t> dims{5, second_minor, 300};
  const TileChoice choice =
      choose_tpu_tiles(type, dims, parse_tpu_target("tpu", XlaEra::k2020, pred));
  std::string out;
  for (const auto& tile : choice.tiles) out += xla::print_tile(tile);
  if (choice.element_size_in_bits != 0)
    out += "E(" + std::to_string(choice.element_size_in_bits) + ")";
  return out;
}

// Expected tile rows of the small tile rule for second minor sizes 1..9.
constexpr int64_t kRows[10] = {0, 2, 2, 4, 4, 8, 8, 8, 8, 8};

TEST(ExamplesOfTilingFormats, SmallTileRowsForSecondMinorOneToNine) {
  for (int64_t s = 1; s <= 9; ++s) EXPECT_EQ(tpu_tile_rows(s), kRows[s]) << s;
  EXPECT_EQ(tpu_tile_rows(0), 8);
  EXPECT_EQ(tpu_tile_rows(128), 8);
}

TEST(ExamplesOfTilingFormats, ThirtyTwoBitTypesUseEightBy128OrTheSmallTile) {
  for (ElementType type : {ElementType::kF32, ElementType::kS32, ElementType::kU32}) {
    for (int64_t s = 1; s <= 9; ++s) {
      EXPECT_EQ(tiles_for(type, s), "(" + std::to_string(kRows[s]) + ",128)") << s;
    }
  }
}

TEST(ExamplesOfTilingFormats, SixtyFourBitAndComplexTypesTileLikeThirtyTwoBit) {
  for (ElementType type : {ElementType::kF64, ElementType::kS64, ElementType::kU64,
                           ElementType::kC64, ElementType::kC128}) {
    for (int64_t s = 1; s <= 9; ++s) {
      EXPECT_EQ(tiles_for(type, s), "(" + std::to_string(kRows[s]) + ",128)") << s;
    }
  }
}

// As the public reports print it: a 16-bit second minor dimension of 1 takes 4 rows on tpu-v2..v5p,
// as XLA printed bf16[2048,1,2048,128]{0,1,3,2:T(4,128)(2,1)} (pytorch/xla#6674); it was 2 before.
TEST(ExamplesOfTilingFormats, SixteenBitTypesPackPairsWithTwoByOne) {
  for (ElementType type :
       {ElementType::kBF16, ElementType::kF16, ElementType::kS16, ElementType::kU16}) {
    for (int64_t s = 1; s <= 9; ++s) {
      const int64_t rows = s == 1 ? 4 : kRows[s];
      EXPECT_EQ(tiles_for(type, s), "(" + std::to_string(rows) + ",128)(2,1)") << s;
    }
  }
  EXPECT_EQ(tpu_layout("bf16[2,6144]"), "bf16[2,6144]{1,0:T(2,128)(2,1)}");
}

TEST(ExamplesOfTilingFormats, EightBitTypesPackFourWithAtLeastFourRows) {
  for (ElementType type :
       {ElementType::kS8, ElementType::kU8, ElementType::kF8E5M2, ElementType::kF8E4M3FN}) {
    for (int64_t s = 1; s <= 9; ++s) {
      const int64_t rows = std::max<int64_t>(kRows[s], 4);
      EXPECT_EQ(tiles_for(type, s), "(" + std::to_string(rows) + ",128)(4,1)") << s;
    }
  }
}

TEST(ExamplesOfTilingFormats, SubByteTypesPackToThirtyTwoBits) {
  for (int64_t s = 1; s <= 9; ++s) {
    EXPECT_EQ(tiles_for(ElementType::kS4, s), "(8,128)(8,1)E(4)");
    EXPECT_EQ(tiles_for(ElementType::kU4, s), "(8,128)(8,1)E(4)");
    EXPECT_EQ(tiles_for(ElementType::kF4E2M1FN, s), "(8,128)(8,1)E(4)");
    EXPECT_EQ(tiles_for(ElementType::kS2, s), "(16,128)(16,1)E(2)");
    EXPECT_EQ(tiles_for(ElementType::kU1, s), "(32,128)(32,1)E(1)");
  }
}

// `tpu` is tpu-v3: pred in 4 bytes unless --pred-bits says otherwise.
TEST(ExamplesOfTilingFormats, PredTakesFourBytesTodayOrOneBit) {
  for (int64_t s = 1; s <= 9; ++s) {
    EXPECT_EQ(tiles_for(ElementType::kPred, s, PredStorage::kFourBytes),
              "(" + std::to_string(kRows[s]) + ",128)E(32)");
    EXPECT_EQ(tiles_for(ElementType::kPred, s), "(" + std::to_string(kRows[s]) + ",128)E(32)");
    EXPECT_EQ(tiles_for(ElementType::kPred, s, PredStorage::kOneBit), "(32,128)(32,1)E(1)");
  }
  const xla::TiledLayout four(xla::parse_shape(tpu_layout("pred[8,128]")));
  EXPECT_EQ(four.size_bytes(), 8 * 128 * 4);
  const xla::TiledLayout one(xla::parse_shape(tpu_layout("pred[32,128]", PredStorage::kOneBit)));
  EXPECT_EQ(one.size_bytes(), 32 * 128 / 8);
}

// As the public reports print them: vectors longer than 256 take T(512) or T(1024) as XLA prints
// them (s8[1000] was T(512)(128)(4,1) before), and a bf16 scalar is T(512)(2,1).
TEST(ExamplesOfTilingFormats, VectorsAndScalarsUseTheLinearTile) {
  EXPECT_EQ(tpu_layout("f32[100]"), "f32[100]{0:T(256)}");
  EXPECT_EQ(tpu_layout("bf16[128]"), "bf16[128]{0:T(256)(128)(2,1)}");
  EXPECT_EQ(tpu_layout("s8[1000]"), "s8[1000]{0:T(1024)(128)(4,1)}");
  EXPECT_EQ(tpu_layout("s8[100]"), "s8[100]{0:T(512)(128)(4,1)}");
  EXPECT_EQ(tpu_layout("s4[10]"), "s4[10]{0:T(1024)(128)(8,1)E(4)}");
  EXPECT_EQ(tpu_layout("f32[]"), "f32[]{:T(256)}");
  EXPECT_EQ(tpu_layout("bf16[]"), "bf16[]{:T(512)(2,1)}");
  EXPECT_EQ(xla::TiledLayout(xla::parse_shape(tpu_layout("f32[]"))).size_bytes(), 1024);
  EXPECT_EQ(xla::TiledLayout(xla::parse_shape(tpu_layout("bf16[300]"))).size_bytes(), 2 * 512);
}

TEST(ExamplesOfTilingFormats, SecondMinorIsThePhysicalOne) {
  EXPECT_EQ(tpu_layout("f32[3,256]"), "f32[3,256]{1,0:T(4,128)}");
  EXPECT_EQ(tpu_layout("f32[3,256]{0,1}"), "f32[3,256]{0,1:T(8,128)}");
  EXPECT_EQ(tpu_layout("f32[7,2,5]{1,2,0}"), "f32[7,2,5]{1,2,0:T(8,128)}");
  EXPECT_EQ(tpu_layout("f32[7,2,5]{2,1,0}"), "f32[7,2,5]{2,1,0:T(2,128)}");
}

TEST(ExamplesOfTilingFormats, WrittenTilesAreKept) {
  EXPECT_EQ(tpu_layout("F32[3,5]{1,0:T(2,2)}"), "f32[3,5]{1,0:T(2,2)}");
  EXPECT_EQ(tpu_layout("pred[3,5]{1,0:E(8)}"), "pred[3,5]{1,0:E(8)}");
  TileChoice choice;
  apply_target(xla::parse_shape("f32[3,5]{1,0:T(2,2)}"),
               parse_tpu_target("tpu", kCurrentXlaEra, PredStorage::kFourBytes), &choice);
  EXPECT_NE(choice.rule.find("kept as written"), std::string::npos);
}

TEST(TargetProfile, TargetsParseAndUnknownOnesAreErrors) {
  // The alias is resolved by the parser, for the era.
  const TpuTarget tpu = parse_tpu_target("tpu");
  EXPECT_EQ(tpu.generation, Generation::kV5e);
  EXPECT_TRUE(tpu.alias);
  EXPECT_EQ(target_name(tpu), "tpu-v5e");
  EXPECT_EQ(parse_tpu_target("tpu", XlaEra::k2020).generation, Generation::kV3);
  EXPECT_EQ(parse_tpu_target("tpu-v6e", XlaEra::k2020).generation, Generation::kV6e);
  EXPECT_FALSE(parse_tpu_target("tpu-v6e").alias);
  EXPECT_FALSE(parse_tpu_target("none").is_tpu());
  EXPECT_EQ(target_name(parse_tpu_target("none")), "none");
  EXPECT_EQ(parse_tpu_target("tpu-v4", XlaEra::k2020, PredStorage::kOneBit).pred,
            PredStorage::kOneBit);
  for (const char* unknown : {"gpu", "TPU-V4"}) {
    try {
      parse_tpu_target(unknown);
      ADD_FAILURE() << unknown;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kInvalid);
      EXPECT_NE(std::string(e.what()).find(known_target_names()), std::string::npos);
    }
  }
  EXPECT_EQ(xla::print_shape(apply_target(xla::parse_shape("f32[3,5]"), parse_tpu_target("none"))),
            "f32[3,5]{1,0}");
}

}  // namespace
}  // namespace tessera::tpu
