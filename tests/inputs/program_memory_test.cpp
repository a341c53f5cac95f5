// program_memory against the TPU compiler itself: every fixture of tests/fixtures/tpu_memory
// (tools/tpu_oracle/memory_programs.py: real JAX programs compiled by libtpu for v4, v5e, v6e and
// v7x) read from its optimized module alone, from its buffer assignment alone, and both together,
// compared with the compiler's memory_analysis() figures; and small written modules for each
// aliasing rule.
#include "tessera/inputs/program_memory.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tessera/error.h"
#include "tessera/tpu/target.h"

namespace tessera::inputs {
namespace {

const std::filesystem::path kFixtures =
    std::filesystem::path(TESSERA_TESTS_DIR) / "fixtures" / "tpu_memory";

std::string read(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

tessera::tpu::TpuTarget generation(const std::string& fixture) {
  if (fixture.starts_with("v4_")) return tessera::tpu::parse_tpu_target("tpu-v4");
  if (fixture.starts_with("v5e_")) return tessera::tpu::parse_tpu_target("tpu-v5e");
  if (fixture.starts_with("v6e_")) return tessera::tpu::parse_tpu_target("tpu-v6e");
  return tessera::tpu::parse_tpu_target("tpu-v7x");
}

ProgramMemory from_module(const std::string& fixture) {
  const std::string text = read(kFixtures / fixture / "after_optimizations.txt");
  return program_memory(text, parse_hlo_module(text), generation(fixture));
}

// Within 1% of the compiler's figure; when the compiler says 0, within 1% of the peak.
void expect_close(int64_t ours, int64_t compiler, int64_t peak, const std::string& what) {
  const double tolerance = 0.01 * static_cast<double>(compiler > 0 ? compiler : peak);
  EXPECT_LE(std::abs(static_cast<double>(ours - compiler)), tolerance)
      << what << ": tessera " << ours << ", compiler " << compiler;
}

nlohmann::json compiled_figures() {
  return nlohmann::json::parse(read(kFixtures / "memory_analysis.json"))["programs"];
}

TEST(ProgramMemory, EveryFixtureFromItsModuleMatchesMemoryAnalysis) {
  int compared = 0;
  const nlohmann::json figures = compiled_figures();
  for (const auto& [fixture, entry] : figures.items()) {
    if (!entry.contains("memory_analysis")) continue;
    const nlohmann::json& compiler = entry["memory_analysis"];
    const ProgramMemory m = from_module(fixture);
    EXPECT_EQ(m.basis, MemoryBasis::kSchedule) << fixture;
    EXPECT_EQ(m.hbm.argument_size_in_bytes, compiler["argument_size_in_bytes"]) << fixture;
    EXPECT_EQ(m.hbm.output_size_in_bytes, compiler["output_size_in_bytes"]) << fixture;
    EXPECT_EQ(m.hbm.alias_size_in_bytes, compiler["alias_size_in_bytes"]) << fixture;
    const int64_t temp = compiler["temp_size_in_bytes"];
    const int64_t peak = compiler["argument_size_in_bytes"].get<int64_t>() +
                         compiler["output_size_in_bytes"].get<int64_t>() -
                         compiler["alias_size_in_bytes"].get<int64_t>() + temp;
    expect_close(m.hbm.temp_size_in_bytes, temp, peak, fixture + " temp");
    expect_close(m.hbm.peak_bytes(), peak, peak, fixture + " peak");
    ++compared;
  }
  EXPECT_GE(compared, 40);
}

TEST(ProgramMemory, EveryFixtureFromItsBufferAssignmentMatchesMemoryAnalysis) {
  const nlohmann::json figures = compiled_figures();
  for (const auto& [fixture, entry] : figures.items()) {
    if (!entry.contains("memory_analysis")) continue;
    const nlohmann::json& compiler = entry["memory_analysis"];
    const ProgramMemory m = program_memory_from_buffer_assignment(
        read(kFixtures / fixture / "after_optimizations-buffer-assignment.txt"));
    EXPECT_EQ(m.basis, MemoryBasis::kBufferAssignment);
    EXPECT_EQ(m.hbm.argument_size_in_bytes, compiler["argument_size_in_bytes"]) << fixture;
    EXPECT_EQ(m.hbm.output_size_in_bytes, compiler["output_size_in_bytes"]) << fixture;
    EXPECT_EQ(m.hbm.alias_size_in_bytes, compiler["alias_size_in_bytes"]) << fixture;
    const int64_t temp = compiler["temp_size_in_bytes"];
    expect_close(m.hbm.temp_size_in_bytes, temp, m.hbm.peak_bytes(), fixture + " temp");
  }
}

TEST(ProgramMemory, ModuleWithItsDumpBesideTakesTheCompilersFigures) {
  const std::filesystem::path module = kFixtures / "v5e_lm_head" / "after_optimizations.txt";
  const auto m = program_memory_of_input(read(module), module.string(),
                                         tessera::tpu::parse_tpu_target("tpu-v5e"));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->basis, MemoryBasis::kBufferAssignment);
  EXPECT_EQ(m->hbm.output_size_in_bytes, 8390967808);
  ASSERT_FALSE(m->live_at_peak.empty());
  EXPECT_FALSE(m->live_at_peak.front().source.empty());  // the live ranges are the module's
}

TEST(ProgramMemory, OutOfMemoryModuleNamesTheLogitsFirstAndTheCompilersTotal) {
  // libtpu: "the total memory required for HLO temporaries (94.84G) exceeds available HBM".
  for (const char* fixture :
       {"v4_lm_head_oom", "v5e_lm_head_oom", "v6e_lm_head_oom", "v7x_lm_head_oom"}) {
    const ProgramMemory m = from_module(fixture);
    expect_close(m.hbm.peak_bytes(), static_cast<int64_t>(94.84 * 1073741824.0), m.hbm.peak_bytes(),
                 fixture);
    EXPECT_GT(m.hbm.peak_bytes(), hbm_capacity_bytes(generation(fixture))) << fixture;
    ASSERT_GE(m.live_at_peak.size(), 3u);
    // The f32 logits (the output) and the bf16 logits (a temporary) are the two largest.
    EXPECT_EQ(m.live_at_peak[0].layout.substr(0, 19), "f32[524288,32003]{0") << fixture;
    EXPECT_EQ(m.live_at_peak[0].kind, BufferKind::kOutput);
    EXPECT_EQ(m.live_at_peak[1].layout.substr(0, 20), "bf16[524288,32003]{0") << fixture;
    EXPECT_EQ(m.live_at_peak[1].kind, BufferKind::kTemporary);
    EXPECT_NE(m.live_at_peak[1].source.find("memory_programs.py:"), std::string::npos);
    EXPECT_NE(m.live_at_peak[1].op_name.find("dot_general"), std::string::npos)
        << m.live_at_peak[1].op_name;
  }
}

// A module written by hand: one rule each.
ProgramMemory written(const std::string& body,
                      tessera::tpu::TpuTarget target = tessera::tpu::parse_tpu_target("tpu-v5e")) {
  return program_memory(body, parse_hlo_module(body), target);
}

TEST(ProgramMemory, SmemScalarsAreFourUntiledBytes) {
  // buffer assignment: "value: <115 copy-start.3{2} @2> (size=4,offset=0): u32[]{:S(2)}".
  const ProgramMemory m = written(
      "HloModule m, is_scheduled=true\n"
      "ENTRY %main (x: f32[8,128]) -> f32[8,128] {\n"
      "  %x = f32[8,128]{1,0:T(8,128)} parameter(0)\n"
      "  %cs = (f32[8,128]{1,0:T(8,128)S(1)}, f32[8,128]{1,0:T(8,128)}, u32[]{:S(2)}) "
      "copy-start(%x)\n"
      "  %cd = f32[8,128]{1,0:T(8,128)S(1)} copy-done(%cs)\n"
      "  ROOT %n = f32[8,128]{1,0:T(8,128)} negate(%cd)\n"
      "}\n");
  bool smem = false;
  for (const ProgramBuffer& b : m.buffers) {
    if (b.memory_space == 2) {
      EXPECT_EQ(b.size_bytes, 4);
      smem = true;
    }
  }
  EXPECT_TRUE(smem);
  EXPECT_EQ(m.hbm.argument_size_in_bytes, 4096);
  EXPECT_EQ(m.hbm.output_size_in_bytes, 4096);
  EXPECT_EQ(m.hbm.temp_size_in_bytes, 0);  // the copy's destination is VMEM, its source x
}

TEST(ProgramMemory, SliceStartIsItsOperandsBufferAndTheTupleTableIsPerGeneration) {
  const std::string text =
      "HloModule m, is_scheduled=true\n"
      "ENTRY %main (w: f32[64,128]) -> (f32[8,128], f32[8,128]) {\n"
      "  %w = f32[64,128]{1,0:T(8,128)} parameter(0)\n"
      "  %s = ((f32[64,128]{1,0:T(8,128)}), f32[8,128]{1,0:T(8,128)S(1)}, s32[]{:S(2)}) "
      "async-start(%w), calls=%slice\n"
      "  %d = f32[8,128]{1,0:T(8,128)S(1)} async-done(%s)\n"
      "  %a = f32[8,128]{1,0:T(8,128)} negate(%d)\n"
      "  %b = f32[8,128]{1,0:T(8,128)} abs(%d)\n"
      "  ROOT %t = (f32[8,128]{1,0:T(8,128)}, f32[8,128]{1,0:T(8,128)}) tuple(%a, %b)\n"
      "}\n";
  const ProgramMemory v5e = written(text);
  EXPECT_EQ(v5e.hbm.argument_size_in_bytes, 64 * 128 * 4);
  EXPECT_EQ(v5e.hbm.output_size_in_bytes, 2 * 4096 + 512);
  EXPECT_EQ(v5e.hbm.temp_size_in_bytes, 0);  // {0} of slice-start is w itself
  EXPECT_EQ(written(text, tessera::tpu::parse_tpu_target("tpu-v6e")).hbm.output_size_in_bytes,
            2 * 4096 + 32);
  EXPECT_EQ(written(text, tessera::tpu::parse_tpu_target("tpu-v3")).hbm.output_size_in_bytes,
            2 * 4096 + 1024);
}

TEST(ProgramMemory, DonatedParametersAreAliasedAndTemporariesPeakWhereTheyOverlap) {
  const ProgramMemory m = written(
      "HloModule m, is_scheduled=true, input_output_alias={ {}: (0, {}, may-alias) }\n"
      "ENTRY %main (x: f32[1024,128]) -> f32[1024,128] {\n"
      "  %x = f32[1024,128]{1,0:T(8,128)} parameter(0), metadata={op_name=\"x\"}\n"
      "  %a = f32[1024,128]{1,0:T(8,128)} negate(%x), metadata={op_name=\"jit(f)/neg\" "
      "source_file=\"f.py\" source_line=3}\n"
      "  %b = f32[1024,128]{1,0:T(8,128)} abs(%a), metadata={op_name=\"jit(f)/abs\" "
      "source_file=\"f.py\" source_line=4}\n"
      "  %c = f32[1024,128]{1,0:T(8,128)} add(%a, %b)\n"
      "  ROOT %d = f32[1024,128]{1,0:T(8,128)} exp(%c)\n"
      "}\n");
  const int64_t array = 1024 * 128 * 4;
  EXPECT_EQ(m.hbm.alias_size_in_bytes, array);
  // At c, its operands a and b and its result are alive together; a dies before the output d
  // is written, so it lives in d's allocation (place_temporaries_in_outputs): b and c count.
  EXPECT_EQ(m.hbm.temp_size_in_bytes, 2 * array);
  EXPECT_EQ(m.hbm.peak_bytes(), 3 * array);
  EXPECT_EQ(m.peak_instruction, "c");
  ASSERT_EQ(m.live_at_peak.size(), 4u);  // x, d (arguments and outputs are held), b, c
  bool named = false;
  for (const ProgramBuffer& b : m.live_at_peak) {
    if (b.name == "b") {
      EXPECT_EQ(b.source, "f.py:4");
      EXPECT_EQ(b.op_name, "jit(f)/abs");
      named = true;
    }
  }
  EXPECT_TRUE(named);
}

TEST(ProgramMemory, WhileCarriesAreOneBufferAndLiveThroughTheLoop) {
  const ProgramMemory m = written(
      "HloModule m, is_scheduled=true\n"
      "%body (p: (s32[], f32[256,128])) -> (s32[], f32[256,128]) {\n"
      "  %p = (s32[]{:T(128)}, f32[256,128]{1,0:T(8,128)}) parameter(0)\n"
      "  %i = s32[]{:T(128)} get-tuple-element(%p), index=0\n"
      "  %v = f32[256,128]{1,0:T(8,128)} get-tuple-element(%p), index=1\n"
      "  %n = f32[256,128]{1,0:T(8,128)} negate(%v)\n"
      "  ROOT %r = (s32[]{:T(128)}, f32[256,128]{1,0:T(8,128)}) tuple(%i, %n)\n"
      "}\n"
      "%cond (q: (s32[], f32[256,128])) -> pred[] {\n"
      "  %q = (s32[]{:T(128)}, f32[256,128]{1,0:T(8,128)}) parameter(0)\n"
      "  ROOT %k = pred[]{:T(512)} constant(true)\n"
      "}\n"
      "ENTRY %main (x: f32[256,128]) -> f32[256,128] {\n"
      "  %x = f32[256,128]{1,0:T(8,128)} parameter(0)\n"
      "  %z = s32[]{:T(128)} constant(0)\n"
      "  %y = f32[256,128]{1,0:T(8,128)} copy(%x)\n"
      "  %t = (s32[]{:T(128)}, f32[256,128]{1,0:T(8,128)}) tuple(%z, %y)\n"
      "  %w = (s32[]{:T(128)}, f32[256,128]{1,0:T(8,128)}) while(%t), condition=%cond, "
      "body=%body\n"
      "  ROOT %o = f32[256,128]{1,0:T(8,128)} get-tuple-element(%w), index=1\n"
      "}\n");
  // y, the body's n and the result are one buffer: the output.
  EXPECT_EQ(m.hbm.output_size_in_bytes, 256 * 128 * 4);
  EXPECT_EQ(m.hbm.temp_size_in_bytes, 0);
}

TEST(ProgramMemory, UnscheduledModuleIsAnEstimateThatSaysSo) {
  const ProgramMemory m = written(
      "HloModule m\n"
      "ENTRY %main (x: f32[1000,3]) -> f32[1000,3] {\n"
      "  %x = f32[1000,3] parameter(0)\n"
      "  ROOT %n = f32[1000,3] negate(%x)\n"
      "}\n");
  EXPECT_EQ(m.basis, MemoryBasis::kEstimate);
  ASSERT_FALSE(m.notes.empty());
  EXPECT_NE(m.notes.front().find("not scheduled"), std::string::npos);
  EXPECT_GT(m.hbm.argument_size_in_bytes, 1000 * 3 * 4);  // laid out for the target: tiled
}

TEST(ProgramMemory, BufferAssignmentWithoutSizesIsRefusedWithTheLine) {
  try {
    program_memory_from_buffer_assignment("BufferAssignment:\nallocation 0: thread-local:\n");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(program_memory_from_buffer_assignment("HloModule m"), Error);
}

TEST(ProgramMemory, JsonKeysAreJaxs) {
  const nlohmann::ordered_json j = program_memory_json(from_module("v5e_mlp_train"));
  for (const char* key : {"argument_size_in_bytes", "output_size_in_bytes", "alias_size_in_bytes",
                          "temp_size_in_bytes", "peak_bytes", "memory_spaces", "live_at_peak"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["peak_bytes"], 3545088 + 3152896 - 3151872);
  for (const auto& b : j["live_at_peak"]) {
    for (const char* key : {"name", "layout", "size_bytes", "kind", "op_name", "source"}) {
      EXPECT_TRUE(b.contains(key)) << key;
    }
  }
}

}  // namespace
}  // namespace tessera::inputs
