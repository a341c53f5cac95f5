// The compiler model (compiler_model.h) against what libtpu 0.0.42.1 printed for every array
// of every sweep in tests/fixtures/tpu_oracle/ (tools/tpu_oracle/regenerate.sh writes them): the
// layout of each device array on each generation, exactly, and the bytes memory_analysis booked.
#include "tessera/tpu/compiler_model.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "tessera/tpu/target_profile.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::tpu {
namespace {

nlohmann::json read_fixture(const std::string& name) {
  const auto path = std::filesystem::path(TESSERA_TESTS_DIR) / "fixtures" / "tpu_oracle" / name;
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  return nlohmann::json::parse(in);
}

// The model's layout of `shape_text` (no layout written: a device array) on `target`.
std::string model_layout(const std::string& shape_text, const std::string& target) {
  return xla::print_shape(layout_for_target(shape_text, parse_tpu_target(target)));
}

class CompilerSweep : public testing::TestWithParam<std::string> {};

TEST_P(CompilerSweep, ModelGivesEveryLayoutTheCompilerPrinted) {
  const nlohmann::json sweep = read_fixture(GetParam() + ".json");
  const auto& arrays = sweep.at("arrays");
  int checked = 0;
  for (const auto& [target, layouts] : sweep.at("layouts").items()) {
    ASSERT_EQ(layouts.size(), arrays.size()) << target;
    int mismatches = 0;
    for (std::size_t i = 0; i < arrays.size(); ++i) {
      const std::string shape = arrays[i];
      const std::string observed = layouts[i];
      ASSERT_FALSE(observed.starts_with("error")) << shape << " on " << target << ": " << observed;
      const std::string expected = shape + observed;
      const std::string model = model_layout(shape, target);
      if (model != expected && ++mismatches <= 5) {
        ADD_FAILURE() << "sweep " << GetParam() << ", " << target << ": the compiler printed "
                      << expected << ", the model says " << model;
      }
      ++checked;
    }
    EXPECT_EQ(mismatches, 0) << target;
  }
  EXPECT_GT(checked, 0);
}

INSTANTIATE_TEST_SUITE_P(TpuOracle, CompilerSweep,
                         testing::Values("rank0", "rank1_lengths", "rank2_rows",
                                         "rank2_whole_tiles", "rank2_order", "random"));

TEST(CompilerSizes, SizeOfTheModelsLayoutIsWhatMemoryAnalysisBooks) {
  const nlohmann::json fixture = read_fixture("memory_sizes.json");
  int checked = 0;
  for (const auto& [target, entries] : fixture.at("sizes").items()) {
    for (const auto& entry : entries) {
      ASSERT_TRUE(entry.at("error").is_null()) << entry.dump();
      const xla::Shape shape =
          layout_for_target(entry.at("array").get<std::string>(), parse_tpu_target(target));
      EXPECT_EQ(xla::print_shape(shape), entry.at("layout").get<std::string>()) << target;
      EXPECT_EQ(xla::TiledLayout(shape).size_bytes(), entry.at("size_bytes").get<int64_t>())
          << entry.at("layout").get<std::string>() << " on " << target;
      ++checked;
    }
  }
  EXPECT_GT(checked, 100);
}

TEST(CompilerShards, ShardOfADeviceArrayIsLaidOutAsADeviceArray) {
  const nlohmann::json fixture = read_fixture("sharded_arrays.json");
  for (const auto& [target, entries] : fixture.at("sharded_arrays").items()) {
    for (const auto& entry : entries) {
      const xla::Shape shape =
          layout_for_target(entry.at("shard").get<std::string>(), parse_tpu_target(target));
      EXPECT_EQ(xla::print_shape(shape), entry.at("layout").get<std::string>())
          << entry.at("global") << " on " << target;
      EXPECT_EQ(xla::TiledLayout(shape).size_bytes(), entry.at("argument_bytes").get<int64_t>());
    }
  }
}

// libtpu_device_bytes is the size of the model's layout, computed without building it: for every
// array of every sweep on every generation, every pred storage, and random arrays of every type.
TEST(CompilerModel, DeviceBytesIsTheSizeOfTheDeviceLayout) {
  int checked = 0;
  auto check = [&](ElementType type, const std::vector<int64_t>& dims, const TpuTarget& target) {
    const xla::Shape shape = libtpu_device_shape(type, dims, target);
    ASSERT_EQ(libtpu_device_bytes(type, dims, target), xla::TiledLayout(shape).size_bytes())
        << xla::print_shape(shape) << " on " << target_name(target);
    ++checked;
  };
  for (const char* name : {"rank0", "rank1_lengths", "rank2_rows", "rank2_order", "random"}) {
    const nlohmann::json sweep = read_fixture(std::string(name) + ".json");
    for (const auto& text : sweep.at("arrays")) {
      const xla::Shape shape = xla::parse_shape(text.get<std::string>());
      for (const auto& [target, layouts] : sweep.at("layouts").items()) {
        check(shape.element_type, shape.dimensions, parse_tpu_target(target));
      }
    }
  }
  std::mt19937_64 random(39);
  const std::vector<int64_t> sizes = {1, 2, 3, 4, 5, 7, 8, 9, 31, 32, 33, 64, 127, 128, 129, 300};
  for (int i = 0; i < 4000; ++i) {
    const ElementType type = all_element_types()[random() % all_element_types().size()];
    std::vector<int64_t> dims(random() % 6);
    for (int64_t& d : dims) d = sizes[random() % sizes.size()];
    for (PredStorage pred : {PredStorage::kTargetDefault, PredStorage::kFourBytes,
                             PredStorage::kOneBit, PredStorage::kOneByte}) {
      check(type, dims, parse_tpu_target(i % 2 ? "tpu-v5e" : "tpu-v3", kCurrentXlaEra, pred));
    }
  }
  EXPECT_GT(checked, 50000);
}

// A jitted function's arguments and results are device arrays too: transpose, reshape,
// broadcast, dot, reduce, concatenate, convert and gather results get the same layouts.
TEST(CompilerOps, ArgumentsAndResultsOfCommonOpsAreDeviceArrays) {
  const nlohmann::json fixture = read_fixture("op_results.json");
  int checked = 0;
  for (const auto& [target, ops] : fixture.at("op_results").items()) {
    for (const auto& op : ops) {
      for (const char* key : {"parameter_layouts", "result_layouts"}) {
        for (const auto& printed : op.at(key)) {
          const std::string layout = printed.get<std::string>();
          const std::string shape = layout.substr(0, layout.find('{'));
          EXPECT_EQ(model_layout(shape, target), layout) << op.at("name") << " on " << target;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 100);
}

TEST(CompilerModel, WorkedExamplesOfTheHeader) {
  EXPECT_EQ(model_layout("f32[1024,3]", "tpu-v5e"), "f32[1024,3]{0,1:T(4,128)}");
  EXPECT_EQ(model_layout("s8[64,1000]", "tpu-v5e"), "s8[64,1000]{1,0:T(32,128)(4,1)}");
  EXPECT_EQ(model_layout("f32[7]", "tpu-v5e"), "f32[7]{0:T(128)}");
  EXPECT_EQ(model_layout("bf16[]", "tpu-v5e"), "bf16[]{:T(256)}");
  EXPECT_EQ(model_layout("s4[3,5]", "tpu-v5e"), "s4[3,5]{1,0:T(8,128)(8,1)E(4)}");
  EXPECT_EQ(model_layout("f32[0,5]", "tpu-v5e"), "f32[0,5]{1,0}");
  EXPECT_EQ(model_layout("s4[3,5]", "tpu-v2"), "s4[3,5]{1,0:T(8,128)(4,1)}");
  // A written order is kept; only the tiles are the compiler's.
  EXPECT_EQ(model_layout("f32[1024,3]{1,0}", "tpu-v5e"), "f32[1024,3]{1,0:T(8,128)}");
}

TEST(CompilerModel, ReorderingIsReportedWithTheWrittenOrdersSize) {
  TileChoice choice;
  const xla::Shape shape =
      apply_target(xla::parse_shape("f32[1024,3]"), parse_tpu_target("tpu-v5e", XlaEra::k2026),
                   &choice, DimensionOrder::kCompilerChooses);
  EXPECT_EQ(xla::print_shape(shape), "f32[1024,3]{0,1:T(4,128)}");
  EXPECT_TRUE(choice.reordered);
  EXPECT_EQ(choice.written_minor_to_major, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(choice.written_order_bytes, 512 * 1024);
}

TEST(CompilerModel, EraTwentyTwentyKeepsTheWrittenOrderAndOldTiles) {
  const TpuTarget tpu_2020 = parse_tpu_target("tpu", XlaEra::k2020);
  EXPECT_EQ(xla::print_shape(layout_for_target("f32[1024,3]", tpu_2020)),
            "f32[1024,3]{1,0:T(8,128)}");
  EXPECT_EQ(xla::print_shape(layout_for_target("pred[8,128]", tpu_2020)),
            "pred[8,128]{1,0:T(8,128)E(32)}");
  EXPECT_EQ(xla::print_shape(layout_for_target("bf16[]", tpu_2020)), "bf16[]{:T(512)(2,1)}");
}

TEST(CompilerModel, OrderSearchIsQuadraticNotFactorial) {
  // Rank 40: 40! orders, 1560 (minor, second minor) pairs.
  std::string dims;
  for (int i = 0; i < 40; ++i) dims += (i ? "," : "") + std::to_string(i % 3 + 1);
  const xla::Shape shape = layout_for_target("f32[" + dims + "]", parse_tpu_target("tpu-v5e"));
  EXPECT_EQ(shape.layout.minor_to_major.size(), 40u);
}

}  // namespace
}  // namespace tessera::tpu
