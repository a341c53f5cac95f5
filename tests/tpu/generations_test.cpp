// Every rule of every TPU generation as a named test, each citing the XLA output it rests on
// (the evidence column of tpu_generations.cpp).
#include "tessera/explain/tpu_generations.h"

#include <gtest/gtest.h>

#include "tessera/error.h"
#include "tessera/explain/xla_sizes.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::explain {
namespace {

// The table is the 2020 era's (tpu_compiler_model_test.cpp checks the 2026 era).
std::string on(Target target, const char* shape, PredStorage pred = PredStorage::kTargetDefault) {
  return xla::print_shape(
      apply_target(xla::parse_shape(shape), target, pred, nullptr, XlaEra::k2020));
}

std::vector<Target> all_generations() {
  std::vector<Target> out;
  for (const TpuGeneration& g : tpu_generations()) out.push_back(g.target);
  return out;
}

TEST(TpuGenerations, TableListsEveryGenerationOnceAndTpuIsAnAlias) {
  const std::vector<std::string_view> names = {"tpu-v2",  "tpu-v3",  "tpu-v4", "tpu-v5e",
                                               "tpu-v5p", "tpu-v6e", "tpu-v7x"};
  ASSERT_EQ(tpu_generations().size(), names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(tpu_generations()[i].name, names[i]);
    EXPECT_EQ(parse_target(names[i]), tpu_generations()[i].target);
    EXPECT_FALSE(tpu_generations()[i].evidence.empty());
  }
  EXPECT_EQ(tpu_generation(parse_target("tpu")).target, Target::kTpuV3);  // the 2020 era's
  EXPECT_THROW(tpu_generation(Target::kNone), Error);
  const std::string table = target_table_text();
  for (std::string_view name : names) EXPECT_NE(table.find(name), std::string::npos);
  EXPECT_NE(table.find("in this era tpu-v3"), std::string::npos);
  EXPECT_NE(table.find("XLA era 2026"), std::string::npos);
  EXPECT_NE(table.find("rank2_whole_tiles"), std::string::npos);
}

// s32[8388608,8,4]{2,1,0:T(8,128)} (DifferentiableUniverseInitiative/flowpm#27).
TEST(TpuRuleEveryGeneration, ThirtyTwoBitUsesEightBy128) {
  for (Target t : all_generations()) {
    EXPECT_EQ(on(t, "s32[8388608,8,4]"), "s32[8388608,8,4]{2,1,0:T(8,128)}");
  }
}

// s32[8388608,8,4]{0,2,1:T(4,128)} (flowpm#27, XLA label): second minor 4 -> 4 rows.
TEST(TpuRuleEveryGeneration, SecondMinorThreeOrFourTakesFourRows) {
  for (Target t : all_generations()) {
    EXPECT_EQ(on(t, "s32[8388608,8,4]{0,2,1}"), "s32[8388608,8,4]{0,2,1:T(4,128)}");
    EXPECT_EQ(on(t, "bf16[3,512]"), "bf16[3,512]{1,0:T(4,128)(2,1)}");  // issue 17
    EXPECT_EQ(on(t, "bf16[4,512]"), "bf16[4,512]{1,0:T(4,128)(2,1)}");
  }
}

// bf16[2,8192]{1,0:T(2,128)(2,1)} (public TPU HLO dumps); tiled layout spec, small tile format.
TEST(TpuRuleEveryGeneration, SecondMinorTwoTakesTwoRows) {
  for (Target t : all_generations()) {
    EXPECT_EQ(on(t, "bf16[2,8192]"), "bf16[2,8192]{1,0:T(2,128)(2,1)}");
    EXPECT_EQ(on(t, "f32[2,8192]"), "f32[2,8192]{1,0:T(2,128)}");
  }
}

// bf16[2048,1,2048,128]{0,1,3,2:T(4,128)(2,1)} (pytorch/xla#6674, a 4x expansion) on tpu-v2..v5p;
// bf16[1,6144]{1,0:T(2,128)(2,1)} (2025 TPU HLO dumps) on tpu-v6e/v7x.
TEST(TpuRulePerGeneration, SixteenBitSecondMinorOne) {
  for (Target t :
       {Target::kTpuV2, Target::kTpuV3, Target::kTpuV4, Target::kTpuV5e, Target::kTpuV5p}) {
    EXPECT_EQ(on(t, "bf16[2048,1,2048,128]{0,1,3,2}"),
              "bf16[2048,1,2048,128]{0,1,3,2:T(4,128)(2,1)}");
  }
  for (Target t : {Target::kTpuV6e, Target::kTpuV7x}) {
    EXPECT_EQ(on(t, "bf16[1,6144]"), "bf16[1,6144]{1,0:T(2,128)(2,1)}");
  }
}

// bf16[512,16,3072]{2,1,0:T(8,128)(2,1)} (pytorch/xla#1965) up to tpu-v5p; T(16,128)(2,1) in
// 2025 vLLM-on-TPU dumps (tpu-v6e/v7x).
TEST(TpuRulePerGeneration, SixteenBitStandardRows) {
  for (Target t :
       {Target::kTpuV2, Target::kTpuV3, Target::kTpuV4, Target::kTpuV5e, Target::kTpuV5p}) {
    EXPECT_EQ(on(t, "bf16[512,16,3072]"), "bf16[512,16,3072]{2,1,0:T(8,128)(2,1)}");
  }
  for (Target t : {Target::kTpuV6e, Target::kTpuV7x}) {
    EXPECT_EQ(on(t, "bf16[512,16,3072]"), "bf16[512,16,3072]{2,1,0:T(16,128)(2,1)}");
  }
  EXPECT_EQ(on(Target::kTpuV6e, "f32[512,16,3072]"), "f32[512,16,3072]{2,1,0:T(8,128)}");
}

// pred[64,512,2048]{...:T(8,128)E(32)} (2020 OOM reports) on tpu-v2/v3;
// pred[128,512]{0,1:T(8,128)(4,1)} (2023 google-research/t5x dumps) from tpu-v4 on.
TEST(TpuRulePerGeneration, PredStorage) {
  for (Target t : {Target::kTpuV2, Target::kTpuV3}) {
    EXPECT_EQ(on(t, "pred[64,512,2048]"), "pred[64,512,2048]{2,1,0:T(8,128)E(32)}");
  }
  for (Target t :
       {Target::kTpuV4, Target::kTpuV5e, Target::kTpuV5p, Target::kTpuV6e, Target::kTpuV7x}) {
    EXPECT_EQ(on(t, "pred[128,512]{0,1}"), "pred[128,512]{0,1:T(8,128)(4,1)}");
  }
  // --pred-bits overrides the generation.
  EXPECT_EQ(on(Target::kTpuV4, "pred[8,128]", PredStorage::kFourBytes),
            "pred[8,128]{1,0:T(8,128)E(32)}");
  EXPECT_EQ(on(Target::kTpuV3, "pred[8,128]", PredStorage::kOneByte),
            "pred[8,128]{1,0:T(8,128)(4,1)}");
  EXPECT_EQ(on(Target::kTpuV3, "pred[8,128]", PredStorage::kOneBit),
            "pred[8,128]{1,0:T(32,128)(32,1)E(1)}");
  EXPECT_EQ(parse_pred_bits(8), PredStorage::kOneByte);
  EXPECT_THROW(parse_pred_bits(16), Error);
}

// f32[8..256]{0:T(256)}, f32[512]{0:T(512)}, f32[1024|1280|8192|524288]{0:T(1024)},
// pred[67108864]{0:T(1024)E(32)} (OOM report XLA labels, issue 17).
TEST(TpuRuleEveryGeneration, RankOneLinearTiles) {
  for (Target t : all_generations()) {
    EXPECT_EQ(on(t, "f32[8]"), "f32[8]{0:T(256)}");
    EXPECT_EQ(on(t, "f32[256]"), "f32[256]{0:T(256)}");
    EXPECT_EQ(on(t, "f32[512]"), "f32[512]{0:T(512)}");
    EXPECT_EQ(on(t, "f32[1024]"), "f32[1024]{0:T(1024)}");
    EXPECT_EQ(on(t, "f32[1280]"), "f32[1280]{0:T(1024)}");
    EXPECT_EQ(on(t, "f32[524288]"), "f32[524288]{0:T(1024)}");
  }
  EXPECT_EQ(xla::TiledLayout(xla::parse_shape(on(Target::kTpu, "f32[1280]"))).size_bytes(), 8192);
  EXPECT_EQ(on(Target::kTpuV3, "pred[67108864]"), "pred[67108864]{0:T(1024)E(32)}");
}

// f32[]{:T(256)} (sokrypton/ColabFold#62); bf16[]{:T(512)(2,1)} (issue 17).
TEST(TpuRuleEveryGeneration, ScalarsUseOneLinearTile) {
  for (Target t : all_generations()) {
    EXPECT_EQ(on(t, "f32[]"), "f32[]{:T(256)}");
    EXPECT_EQ(on(t, "bf16[]"), "bf16[]{:T(512)(2,1)}");
  }
}

// Tiled layout spec, "Examples of tiling formats": 8-bit (4,1) with at least 4 rows, sub-byte
// packed to 32 bits with E(n); 64-bit as 32-bit (tessera's assumption, no public output).
TEST(TpuRuleEveryGeneration, EightBitSubByteAndSixtyFourBit) {
  for (Target t : all_generations()) {
    EXPECT_EQ(on(t, "s8[1,256]"), "s8[1,256]{1,0:T(4,128)(4,1)}");
    EXPECT_EQ(on(t, "s4[3,256]"), "s4[3,256]{1,0:T(8,128)(8,1)E(4)}");
    EXPECT_EQ(on(t, "f64[3,256]"), "f64[3,256]{1,0:T(4,128)}");
  }
}

TEST(TpuGenerations, TargetFromEnvironment) {
  ::setenv("TESSERA_TARGET", "tpu-v6e", 1);
  EXPECT_EQ(target_or_environment(std::nullopt, Target::kNone), Target::kTpuV6e);
  EXPECT_EQ(target_or_environment("none", Target::kTpu), Target::kNone);
  ::setenv("TESSERA_TARGET", "gpu", 1);
  EXPECT_THROW(target_or_environment(std::nullopt, Target::kNone), Error);
  ::unsetenv("TESSERA_TARGET");
  EXPECT_EQ(target_or_environment(std::nullopt, Target::kTpu), Target::kTpu);
}

}  // namespace
}  // namespace tessera::explain
