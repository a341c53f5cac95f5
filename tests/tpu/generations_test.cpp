// Every rule of every TPU generation as a named test, each citing the XLA output it rests on
// (the evidence column of generations.cpp).
#include "tessera/tpu/generations.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tessera/error.h"
#include "tessera/explain/xla_sizes.h"
#include "tessera/tpu/target_profile.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::tpu {
namespace {

// These rows are the 2020 era's (compiler_model_test.cpp checks the 2026 era).
std::string on(Generation generation, const char* shape,
               PredStorage pred = PredStorage::kTargetDefault) {
  const TpuTarget target{.generation = generation, .pred = pred, .era = XlaEra::k2020};
  return xla::print_shape(apply_target(xla::parse_shape(shape), target));
}

std::vector<Generation> all_generations() {
  std::vector<Generation> out;
  for (const TpuGeneration& g : tpu_generations()) out.push_back(g.generation);
  return out;
}

TEST(TpuGenerations, TableListsEveryGenerationOnceAndTpuIsAnAlias) {
  const std::vector<std::string_view> names = {"tpu-v2",  "tpu-v3",  "tpu-v4", "tpu-v5e",
                                               "tpu-v5p", "tpu-v6e", "tpu-v7x"};
  ASSERT_EQ(tpu_generations().size(), names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(tpu_generations()[i].name, names[i]);
    EXPECT_EQ(parse_tpu_target(names[i]).generation, tpu_generations()[i].generation);
    EXPECT_FALSE(tpu_generations()[i].evidence_2020.empty());
  }
  EXPECT_EQ(usual_generation(XlaEra::k2020), Generation::kV3);
  EXPECT_EQ(usual_generation(XlaEra::k2026), Generation::kV5e);
  EXPECT_THROW(tpu_generation(parse_tpu_target("none")), Error);
  const std::string table = target_table_text();
  for (std::string_view name : names) EXPECT_NE(table.find(name), std::string::npos);
  EXPECT_NE(table.find("in this era tpu-v3"), std::string::npos);
  EXPECT_NE(table.find("XLA era 2026"), std::string::npos);
  EXPECT_NE(table.find("rank2_whole_tiles"), std::string::npos);
}

// Every record's oracle facts are what the oracle recorded: the topology each fixture was
// compiled for, and the available HBM libtpu names when a program does not fit.
TEST(TpuGenerations, RecordsAgreeWithTheOraclesFixtures) {
  const auto path =
      std::filesystem::path(TESSERA_TESTS_DIR) / "fixtures" / "tpu_oracle" / "oom_messages.json";
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << path;
  const nlohmann::json fixture = nlohmann::json::parse(in);
  for (const auto& [name, topology] : fixture.at("topologies").items()) {
    const TpuGeneration& g = tpu_generation(*parse_tpu_target(name).generation);
    EXPECT_EQ(topology.get<std::string>(), g.topology) << name;
    for (const auto& oom : fixture.at("oom_messages").at(name)) {
      const std::string message = oom.at("message").get<std::string>();
      EXPECT_NE(message.find("available HBM (" + std::string(g.hbm) + ")"), std::string::npos)
          << name << ": " << message;
    }
    EXPECT_FALSE(g.device_kind.empty());
  }
}

// s32[8388608,8,4]{2,1,0:T(8,128)} (DifferentiableUniverseInitiative/flowpm#27).
TEST(TpuRuleEveryGeneration, ThirtyTwoBitUsesEightBy128) {
  for (Generation t : all_generations()) {
    EXPECT_EQ(on(t, "s32[8388608,8,4]"), "s32[8388608,8,4]{2,1,0:T(8,128)}");
  }
}

// s32[8388608,8,4]{0,2,1:T(4,128)} (flowpm#27, XLA label): second minor 4 -> 4 rows.
TEST(TpuRuleEveryGeneration, SecondMinorThreeOrFourTakesFourRows) {
  for (Generation t : all_generations()) {
    EXPECT_EQ(on(t, "s32[8388608,8,4]{0,2,1}"), "s32[8388608,8,4]{0,2,1:T(4,128)}");
    EXPECT_EQ(on(t, "bf16[3,512]"), "bf16[3,512]{1,0:T(4,128)(2,1)}");  // public OOM reports
    EXPECT_EQ(on(t, "bf16[4,512]"), "bf16[4,512]{1,0:T(4,128)(2,1)}");
  }
}

// bf16[2,8192]{1,0:T(2,128)(2,1)} (public TPU HLO dumps); tiled layout spec, small tile format.
TEST(TpuRuleEveryGeneration, SecondMinorTwoTakesTwoRows) {
  for (Generation t : all_generations()) {
    EXPECT_EQ(on(t, "bf16[2,8192]"), "bf16[2,8192]{1,0:T(2,128)(2,1)}");
    EXPECT_EQ(on(t, "f32[2,8192]"), "f32[2,8192]{1,0:T(2,128)}");
  }
}

// bf16[2048,1,2048,128]{0,1,3,2:T(4,128)(2,1)} (pytorch/xla#6674, a 4x expansion) on tpu-v2..v5p;
// bf16[1,6144]{1,0:T(2,128)(2,1)} (2025 TPU HLO dumps) on tpu-v6e/v7x.
TEST(TpuRulePerGeneration, SixteenBitSecondMinorOne) {
  for (Generation t :
       {Generation::kV2, Generation::kV3, Generation::kV4, Generation::kV5e, Generation::kV5p}) {
    EXPECT_EQ(on(t, "bf16[2048,1,2048,128]{0,1,3,2}"),
              "bf16[2048,1,2048,128]{0,1,3,2:T(4,128)(2,1)}");
  }
  for (Generation t : {Generation::kV6e, Generation::kV7x}) {
    EXPECT_EQ(on(t, "bf16[1,6144]"), "bf16[1,6144]{1,0:T(2,128)(2,1)}");
  }
}

// bf16[512,16,3072]{2,1,0:T(8,128)(2,1)} (pytorch/xla#1965) up to tpu-v5p; T(16,128)(2,1) in
// 2025 vLLM-on-TPU dumps (tpu-v6e/v7x).
TEST(TpuRulePerGeneration, SixteenBitStandardRows) {
  for (Generation t :
       {Generation::kV2, Generation::kV3, Generation::kV4, Generation::kV5e, Generation::kV5p}) {
    EXPECT_EQ(on(t, "bf16[512,16,3072]"), "bf16[512,16,3072]{2,1,0:T(8,128)(2,1)}");
  }
  for (Generation t : {Generation::kV6e, Generation::kV7x}) {
    EXPECT_EQ(on(t, "bf16[512,16,3072]"), "bf16[512,16,3072]{2,1,0:T(16,128)(2,1)}");
  }
  EXPECT_EQ(on(Generation::kV6e, "f32[512,16,3072]"), "f32[512,16,3072]{2,1,0:T(8,128)}");
}

// pred[64,512,2048]{...:T(8,128)E(32)} (2020 OOM reports) on tpu-v2/v3;
// pred[128,512]{0,1:T(8,128)(4,1)} (2023 google-research/t5x dumps) from tpu-v4 on.
TEST(TpuRulePerGeneration, PredStorage) {
  for (Generation t : {Generation::kV2, Generation::kV3}) {
    EXPECT_EQ(on(t, "pred[64,512,2048]"), "pred[64,512,2048]{2,1,0:T(8,128)E(32)}");
  }
  for (Generation t :
       {Generation::kV4, Generation::kV5e, Generation::kV5p, Generation::kV6e, Generation::kV7x}) {
    EXPECT_EQ(on(t, "pred[128,512]{0,1}"), "pred[128,512]{0,1:T(8,128)(4,1)}");
  }
  // --pred-bits overrides the generation.
  EXPECT_EQ(on(Generation::kV4, "pred[8,128]", PredStorage::kFourBytes),
            "pred[8,128]{1,0:T(8,128)E(32)}");
  EXPECT_EQ(on(Generation::kV3, "pred[8,128]", PredStorage::kOneByte),
            "pred[8,128]{1,0:T(8,128)(4,1)}");
  EXPECT_EQ(on(Generation::kV3, "pred[8,128]", PredStorage::kOneBit),
            "pred[8,128]{1,0:T(32,128)(32,1)E(1)}");
  EXPECT_EQ(parse_pred_bits(8), PredStorage::kOneByte);
  EXPECT_THROW(parse_pred_bits(16), Error);
}

// f32[8..256]{0:T(256)}, f32[512]{0:T(512)}, f32[1024|1280|8192|524288]{0:T(1024)},
// pred[67108864]{0:T(1024)E(32)} (OOM report XLA labels).
TEST(TpuRuleEveryGeneration, RankOneLinearTiles) {
  for (Generation t : all_generations()) {
    EXPECT_EQ(on(t, "f32[8]"), "f32[8]{0:T(256)}");
    EXPECT_EQ(on(t, "f32[256]"), "f32[256]{0:T(256)}");
    EXPECT_EQ(on(t, "f32[512]"), "f32[512]{0:T(512)}");
    EXPECT_EQ(on(t, "f32[1024]"), "f32[1024]{0:T(1024)}");
    EXPECT_EQ(on(t, "f32[1280]"), "f32[1280]{0:T(1024)}");
    EXPECT_EQ(on(t, "f32[524288]"), "f32[524288]{0:T(1024)}");
  }
  EXPECT_EQ(xla::TiledLayout(xla::parse_shape(on(usual_generation(XlaEra::k2020), "f32[1280]")))
                .size_bytes(),
            8192);
  EXPECT_EQ(on(Generation::kV3, "pred[67108864]"), "pred[67108864]{0:T(1024)E(32)}");
}

// f32[]{:T(256)} (sokrypton/ColabFold#62); bf16[]{:T(512)(2,1)}.
TEST(TpuRuleEveryGeneration, ScalarsUseOneLinearTile) {
  for (Generation t : all_generations()) {
    EXPECT_EQ(on(t, "f32[]"), "f32[]{:T(256)}");
    EXPECT_EQ(on(t, "bf16[]"), "bf16[]{:T(512)(2,1)}");
  }
}

// Tiled layout spec, "Examples of tiling formats": 8-bit (4,1) with at least 4 rows, sub-byte
// packed to 32 bits with E(n); 64-bit as 32-bit (tessera's assumption, no public output).
TEST(TpuRuleEveryGeneration, EightBitSubByteAndSixtyFourBit) {
  for (Generation t : all_generations()) {
    EXPECT_EQ(on(t, "s8[1,256]"), "s8[1,256]{1,0:T(4,128)(4,1)}");
    EXPECT_EQ(on(t, "s4[3,256]"), "s4[3,256]{1,0:T(8,128)(8,1)E(4)}");
    EXPECT_EQ(on(t, "f64[3,256]"), "f64[3,256]{1,0:T(4,128)}");
  }
}

TEST(TpuGenerations, TargetFromEnvironment) {
  ::setenv("TESSERA_TARGET", "tpu-v6e", 1);
  EXPECT_EQ(tpu_target_or_environment(std::nullopt, std::nullopt, 0, "none").generation,
            Generation::kV6e);
  EXPECT_FALSE(tpu_target_or_environment("none", std::nullopt, 0, "tpu").is_tpu());
  ::setenv("TESSERA_TARGET", "gpu", 1);
  EXPECT_THROW(tpu_target_or_environment(std::nullopt, std::nullopt, 0, "none"), Error);
  ::unsetenv("TESSERA_TARGET");
  const TpuTarget fallback = tpu_target_or_environment(std::nullopt, "2020", 8, "tpu");
  EXPECT_EQ(fallback, (TpuTarget{Generation::kV3, PredStorage::kOneByte, XlaEra::k2020, true}));
}

}  // namespace
}  // namespace tessera::tpu
