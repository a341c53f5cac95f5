// tpu-mlir's own local-memory plans (tests/fixtures/tpu_mlir_plans/, written by
// tools/npu_oracle/tpu_mlir_plans.sh): every #tpu.lg placement is read, tessera's bytes per NPU
// equal the compiler's out_size on every tensor, and no two tensors alive in the same timestep
// overlap. Then the reader's refusals, and timesteps in JSON plans.
#include "tessera/npu/tpu_mlir_plan.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tessera/error.h"
#include "tessera/npu/chip.h"
#include "tessera/npu/local_plan.h"
#include "tessera/npu/plan_check.h"
#include "tessera/npu/tpu_mlir_local_plan.h"

namespace tessera::npu {
namespace {

std::filesystem::path fixture_dir() {
  return std::filesystem::path(TESSERA_TESTS_DIR) / "fixtures" / "tpu_mlir_plans";
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int64_t count_of(const std::string& text, const std::string& what) {
  int64_t count = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++count;
  }
  return count;
}

TEST(TpuMlirPlanFixtures, EveryPlacementReadSizesAgreeNoOverlapInATimestep) {
  int64_t files = 0;
  int64_t grouped = 0;
  for (const auto& entry : std::filesystem::directory_iterator(fixture_dir())) {
    if (entry.path().extension() != ".mlir") continue;
    ++files;
    SCOPED_TRACE(entry.path().filename().string());
    const std::string text = read_text(entry.path());
    const TpuMlirModule module = parse_tpu_mlir_plan(text);
    const TpuMlirPlanCheck check = check_tpu_mlir_plan(module);
    EXPECT_EQ(check.placements, count_of(text, "#tpu.lg<"));
    EXPECT_EQ(static_cast<int64_t>(module.groups.size()), count_of(text, "\"tpu.Group\"("));
    EXPECT_EQ(check.chip,
              entry.path().filename().string().substr(
                  entry.path().filename().string().find('_', 5) + 1, check.chip.size()));
    for (const TpuMlirGroupCheck& g : check.groups) {
      EXPECT_GT(g.timesteps.size(), 0u);
      for (const TpuMlirTensor& t : g.tensors) {
        EXPECT_EQ(t.bytes_per_npu, t.compiler_bytes) << t.name << " line " << t.line;
        EXPECT_FALSE(t.timesteps.empty()) << t.name;
      }
      EXPECT_EQ(g.check.counts.overlaps, 0);
      EXPECT_EQ(g.check.counts.not_fitting, 0);
    }
    EXPECT_EQ(check.size_mismatches, 0);
    EXPECT_EQ(check.overlaps, 0);
    grouped += static_cast<int64_t>(check.groups.size());
  }
  EXPECT_EQ(files, 16);
  EXPECT_EQ(grouped, 13);  // the three matmul files have none (the fixtures' README says why)
}

TEST(TpuMlirPlanFixtures, ConvStemAsTheCompilerWroteIt) {
  const TpuMlirPlanCheck check = check_tpu_mlir_plan(
      read_tpu_mlir_plan((fixture_dir() / "conv_stem_bm1684x_f32_final.mlir").string()));
  ASSERT_EQ(check.groups.size(), 1u);
  const TpuMlirGroupCheck& g = check.groups[0];
  EXPECT_EQ(g.hsecs, 2);
  EXPECT_EQ(g.swpipl_stage_num, 3);
  EXPECT_EQ(g.stores, 1);
  ASSERT_EQ(g.tensors.size(), 5u);
  // flow = [-1, 3, 5, -2, 4, 0, 1, 2]: the input slice loaded in timestep 1 (stage 0) is read by
  // the convolution in timestep 0 of the next pass (stage 1): alive in both.
  const TpuMlirTensor& input = g.tensors[0];
  EXPECT_EQ(input.op, "tpu.Load");
  EXPECT_EQ(input.slice, (TensorShape{1, 3, 117, 224}));
  EXPECT_EQ(input.compiler_bytes, 104832);
  EXPECT_EQ(input.timesteps, (std::vector<int64_t>{0, 1}));
  const TpuMlirTensor& weight = g.tensors[1];
  EXPECT_FALSE(weight.eu_align);
  EXPECT_EQ(weight.bytes_per_npu, 588);
}

TEST(TpuMlirPlanFixtures, Bm1684Int8IsStored4N) {
  const TpuMlirPlanCheck check = check_tpu_mlir_plan(
      read_tpu_mlir_plan((fixture_dir() / "resblocks_bm1684_int8_sym_final.mlir").string()));
  int64_t packed = 0;
  for (const TpuMlirTensor& t : check.groups.at(0).tensors) {
    if (t.mode == "4N") {
      ++packed;
      EXPECT_TRUE(t.dtype == "s8" || t.dtype == "u8");
      EXPECT_EQ(t.bytes_per_npu, t.compiler_bytes);
    }
  }
  EXPECT_GT(packed, 0);
}

// A small group in tpu-mlir's form, for the refusals below.
std::string small_module(const std::string& lg =
                             "out_addr = 0, out_size = 64, eu_align = true, "
                             "c_slice = [4], h_slice = [2], w_slice = [2], "
                             "id = 0, stage = 0",
                         const std::string& flow = "[-1, 0]", const std::string& chip = "bm1684x") {
  return "module @m attributes {module.chip = \"" + chip +
         "\"} {\n"
         "  %1 = \"tpu.Group\"(%0) ({\n"
         "    %2 = \"tpu.Load\"(%0) {ginfo = #tpu.lg<" +
         lg +
         ">} : (tensor<1x4x2x2xf32, 4294967296 : i64>) -> tensor<1x4x2x2xf32> loc(#loc)\n"
         "    \"tpu.Yield\"(%2) : (tensor<1x4x2x2xf32>) -> () loc(#loc)\n"
         "  }) {flow = " +
         flow +
         ", hsecs = 1 : i64, nsecs = 1 : i64} : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>\n"
         "}\n";
}

std::string error_of(const std::string& text) {
  try {
    check_tpu_mlir_plan(parse_tpu_mlir_plan(text));
  } catch (const Error& e) {
    return e.message();
  }
  return "no error";
}

TEST(TpuMlirPlanReader, ReadsTheSmallModule) {
  const TpuMlirModule module = parse_tpu_mlir_plan(small_module());
  ASSERT_EQ(module.groups.size(), 1u);
  EXPECT_EQ(module.groups[0].ops.at(0).dtype, "f32");
  EXPECT_EQ(module.groups[0].other_ops, 1);
  EXPECT_EQ(check_tpu_mlir_plan(module).groups[0].tensors[0].bytes_per_npu, 64);
}

TEST(TpuMlirPlanReader, RefusesWithLineAndField) {
  EXPECT_EQ(error_of(small_module("out_addr = x1, out_size = 64, id = 0")),
            "line 3: field 'out_addr': value 'x1' is not an integer (decimal or 0x hex)");
  EXPECT_EQ(error_of(small_module("out_size = 64, id = 0")),
            "line 3: field 'out_addr': missing from #tpu.lg<...>");
  EXPECT_EQ(error_of(small_module("out_addr = 0, out_size = 64, id = 0, h_slice = [0]")),
            "line 3: field 'h_slice': a slice of 0 elements");
  EXPECT_EQ(error_of(small_module("out_addr = 0, out_size = 64, id = 0, eu_align = maybe")),
            "line 3: field 'eu_align': expected true or false");
  EXPECT_EQ(error_of(small_module("out_addr = -4, out_size = 64, id = 0")),
            "line 3: field 'out_addr': negative (-4)");
  EXPECT_EQ(error_of(small_module("out_addr = 0, out_addr = 0, out_size = 64, id = 0")),
            "line 3: field 'out_addr': given twice");
  EXPECT_EQ(error_of(small_module().replace(small_module().find("flow = "), 7, "flaw = ")),
            "line 5: field 'flow': the group has no timesteps");
  EXPECT_EQ(error_of(small_module(
                "out_addr = 0, out_size = 64, eu_align = true, c_slice = [4], id = 0", "[-1, 7]")),
            "line 5: field 'flow': names op id 7, which the group does not have");
  EXPECT_EQ(error_of(small_module(
                "out_addr = 0, out_size = 64, eu_align = true, c_slice = [4], id = 0", "[-2, 0]")),
            "line 5: field 'flow': timestep mark -2 out of order");
  EXPECT_EQ(
      error_of(small_module("out_addr = 0, out_size = 64, eu_align = true, c_slice = [4], id = 0",
                            "[-1, 0]", "bm9999")),
      fmt::format("field 'module.chip': tessera has no preset for chip 'bm9999' (presets: {})",
                  chip_names()));
  EXPECT_NE(error_of(small_module().substr(0, 200)).find("line 3: field 'ginfo'"),
            std::string::npos);
  const std::string unclosed = small_module();
  EXPECT_EQ(error_of(unclosed.substr(0, unclosed.find("  })"))),
            "line 2: field 'tpu.Group': the group's region is not closed");
}

TEST(TpuMlirPlanReader, EveryPrefixOfAFixtureParsesOrIsRefused) {
  const std::string text = read_text(fixture_dir() / "resblocks_bm1684_int8_sym_final.mlir");
  for (std::size_t size = 0; size < text.size(); size += 37) {
    try {
      check_tpu_mlir_plan(parse_tpu_mlir_plan(text.substr(0, size)));
    } catch (const Error&) {
    }
  }
}

TEST(PlanTimesteps, OverlapsOnlyBetweenTensorsAliveTogether) {
  nlohmann::json plan = {
      {"device", "npus=4,lmem=1024,align=128,banks=4"},
      {"tensors",
       {{{"name", "a"}, {"shape", {1, 4, 1, 8}}, {"dtype", "f32"}, {"address", 0}},
        {{"name", "b"}, {"shape", {1, 4, 1, 8}}, {"dtype", "f32"}, {"address", 0}}}}};
  EXPECT_EQ(check_local_plan(parse_local_plan(plan)).counts.overlaps, 1);  // no timesteps
  plan["timesteps"] = {{"a"}, {"b"}};
  const LocalPlan apart = parse_local_plan(plan);
  EXPECT_EQ(check_local_plan(apart).counts.overlaps, 0);
  EXPECT_EQ(local_plan_json(apart)["timesteps"].dump(), plan["timesteps"].dump());
  plan["timesteps"] = {{"a"}, {"a", "b"}};
  EXPECT_EQ(check_local_plan(parse_local_plan(plan)).counts.overlaps, 1);
  plan["timesteps"] = nlohmann::json::array({nlohmann::json::array({"a", "c"})});
  try {
    parse_local_plan(plan);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), "timesteps[0]: names tensor 'c', which the plan does not have");
  }
}

}  // namespace
}  // namespace tessera::npu
