// The readers on reports from public threads (tests/inputs/fixtures/README.md names
// them), HLO modules with tuples and fusions, and malformed input.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "support/fixtures.h"
#include "tessera/error.h"
#include "tessera/explain/xla_sizes.h"
#include "tessera/inputs/input_arrays.h"
#include "tessera/inputs/input_explanation.h"
#include "tessera/inputs/shapes_in_text.h"
#include "tessera/xla/notation.h"

namespace tessera::inputs {
namespace {

std::string fixture(const std::string& name) {
  return test_support::read_fixture(name);
}

TEST(XlaSizes, PrintsAsXlaDoes) {
  EXPECT_EQ(explain::xla_size_text(256 << 20), "256.00M");
  EXPECT_EQ(explain::xla_size_text(4096), "4.0K");
  EXPECT_EQ(explain::xla_size_text(512), "512B");
  EXPECT_EQ(explain::xla_size_text(0), "0B");
  EXPECT_EQ(explain::xla_size_text(int64_t{31} << 30), "31.00G");
  EXPECT_EQ(explain::xla_size_text(1024 * 245 * 64 * 4), "61.25M");
  EXPECT_EQ(explain::unpadded_bytes(xla::parse_shape("pred[1024]")), 1024);
  EXPECT_EQ(explain::unpadded_bytes(xla::parse_shape("s32[8388608,8,4]")), int64_t{1} << 30);
}

TEST(ShapesInText, FindsShapesNotAttributes) {
  const auto found =
      find_shapes("%r = bf16[16,12]{1,0:T(8,128)(2,1)} reshape(f32[] %c), dimensions={}, foo[3]");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].text, "bf16[16,12]{1,0:T(8,128)(2,1)}");
  EXPECT_TRUE(found[0].has_layout);
  EXPECT_EQ(found[1].text, "f32[]");
}

TEST(ShapesInText, SplitsNestedTuples) {
  std::size_t pos = 0;
  const auto shapes = read_shape_at("(f32[2]{0}, (s32[], pred[4]{0})) tuple()", pos);
  ASSERT_TRUE(shapes);
  ASSERT_EQ(shapes->size(), 3u);
  EXPECT_EQ((*shapes)[0].index, "{0}");
  EXPECT_EQ((*shapes)[1].index, "{1,0}");
  EXPECT_EQ((*shapes)[2].text, "pred[4]{0}");
  EXPECT_EQ((*shapes)[2].index, "{1,1}");
  EXPECT_EQ(pos, 32u);
}

TEST(OomReport, LogPrefixedReportReadsAndWarnsAboutTheCutEntry) {
  const InputReading r = read_input(fixture("pytorch_xla_1965_log_prefixed.txt"));
  EXPECT_EQ(r.format, InputFormat::kOomReport);
  ASSERT_EQ(r.arrays.size(), 2u);
  EXPECT_EQ(r.arrays[0].name, "reshape.152459");
  EXPECT_EQ(r.arrays[0].place, "hbm allocation 14");
  EXPECT_EQ(r.arrays[0].reported_size, "96.00M");
  EXPECT_EQ(r.arrays[1].name, "");  // entry 15 is cut before its label
  const InputExplanation e = explain_input(r, {});
  for (const auto& a : e.arrays) EXPECT_TRUE(a.disagreements.empty()) << a.disagreements[0];
}

// Every number XLA printed is reproduced exactly by tessera.
TEST(OomReport, ReproducesXlaNumbers) {
  for (const char* name : {"easydel_166_newer_layout.txt", "colabfold_62_padding.txt",
                           "jax_7502_padding.txt", "pytorch_xla_1965_log_prefixed.txt"}) {
    const InputExplanation e = explain_input(read_input(fixture(name)), {});
    ASSERT_FALSE(e.arrays.empty()) << name;
    for (const auto& a : e.arrays) {
      EXPECT_TRUE(a.disagreements.empty()) << name << ": " << a.disagreements.front();
      if (!a.input.reported_size.empty()) {
        EXPECT_EQ(explain::xla_size_text(a.size_bytes), a.input.reported_size) << name;
      }
    }
  }
  const InputExplanation jax = explain_input(read_input(fixture("jax_7502_padding.txt")), {});
  EXPECT_EQ(jax.arrays[0].input.reported_padding, "31.00G (32.0x expansion)");
  EXPECT_EQ(jax.arrays[0].padding_bytes(), int64_t{31} << 30);
  EXPECT_EQ(jax.arrays[0].input.name, "iota.1");
}

TEST(OomReport, DisagreementIsFlagged) {
  const InputReading r = read_input(
      "Largest program allocations in hbm:\n 1. Size: 2.00G\n Shape: f32[1024,1024]{1,0:T(8,128)}\n"
      " Unpadded size: 4.00M\n");
  const InputExplanation e = explain_input(r, {});
  ASSERT_EQ(e.arrays.size(), 1u);
  ASSERT_EQ(e.arrays[0].disagreements.size(), 1u);
  EXPECT_EQ(e.arrays[0].disagreements[0], "Size: report 2.00G, tessera 4.00M");
  EXPECT_NE(input_explanation_text(e, 20).find("DISAGREES"), std::string::npos);
}

// Regression: a report cut inside a number was flagged "DISAGREES WITH THE REPORT".
TEST(OomReport, ANumberCutShortIsAWarningNotADisagreement) {
  const InputReading r = read_input(
      "Largest program allocations in hbm:\n 1. Size: 4.00M\n Shape: f32[1024,1024]{1,0:T(8,128)}\n"
      " Unpadded size: 4.");
  ASSERT_EQ(r.arrays.size(), 1u);
  EXPECT_EQ(r.arrays[0].reported_unpadded, "");
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0],
            "line 4: 'Unpadded size: 4.' is cut short or not a size XLA prints; not compared");
  const InputExplanation e = explain_input(r, {});
  EXPECT_TRUE(e.arrays[0].disagreements.empty());
  const std::string text = input_explanation_text(e, 20);
  EXPECT_NE(text.find("report: Size 4.00M (tessera agrees)"), std::string::npos) << text;
  EXPECT_EQ(text.find("DISAGREES"), std::string::npos);
  const InputReading padding = read_input(
      "Largest program allocations in hbm:\n 1. Size: 4.00M\n Shape: f32[4]{0}\n"
      " Extra memory due to padding: 2.75M (1.0x expan");
  EXPECT_EQ(padding.arrays[0].reported_padding, "");
  EXPECT_EQ(padding.warnings.size(), 1u);
}

// Regression: a byte that is not UTF-8 became '?', which the parser then called a
// dynamic dimension; control characters went through raw.
TEST(ShapeText, BytesThatAreNotUtf8AreNamedNotCalledDynamic) {
  const InputExplanation e = explain_input(read_input("x f32[2\xc3"
                                                      "3]{1,0} y\x01z\n"),
                                           {});
  ASSERT_EQ(e.arrays.size(), 1u);
  EXPECT_EQ(e.arrays[0].input.shape, "f32[2\\xc33]{1,0}");
  EXPECT_NE(e.arrays[0].error.find("the shape holds a byte that is not UTF-8 (\\xc3)"),
            std::string::npos)
      << e.arrays[0].error;
  EXPECT_EQ(e.arrays[0].error.find("dynamic"), std::string::npos);
  const std::string text = input_explanation_text(e, 20);
  EXPECT_EQ(text.find('\x01'), std::string::npos);
  EXPECT_EQ(input_lines("a\tb\x01")[0], "a b\\u0001");
}

TEST(OomReport, EscapedOneLineMessageReads) {
  const InputReading r = read_input(
      "XlaRuntimeError('RESOURCE_EXHAUSTED: ...\\n  Largest program allocations in vmem:\\n  1. "
      "Size: 32.00G\\n     Shape: s32[8388608,8,4]{2,1,0:T(8,128)}\\n     Unpadded size: "
      "1.00G\\n')");
  ASSERT_EQ(r.arrays.size(), 1u);
  EXPECT_EQ(r.arrays[0].place, "vmem allocation 1");
}

TEST(HloModule, TuplesFusionsAndEntryLayout) {
  const InputReading r = read_input(fixture("hlo_tuple_fusion.hlo"));
  EXPECT_EQ(r.format, InputFormat::kHloModule);
  std::vector<std::string> names;
  for (const auto& a : r.arrays) names.push_back(a.name + " " + a.shape);
  const std::vector<std::string> expected = {"parameter 0 f32[8,100]{1,0}",
                                             "parameter 1 s32[]",
                                             "result{0} f32[8]{0}",
                                             "result{1,0} s32[]",
                                             "result{1,1} pred[3]{0}",
                                             "param_0.1 f32[8,100]{1,0}",
                                             "constant.2 f32[]",
                                             "reduce.3 f32[8]{0}",
                                             "state{0} s32[]",
                                             "state{1} f32[8,100]{1,0}",
                                             "gte.5 s32[]",
                                             "tuple.6{0} s32[]",
                                             "tuple.6{1} f32[8,100]{1,0}",
                                             "Arg_0.1 f32[8,100]{1,0}",
                                             "Arg_1.2 s32[]",
                                             "fusion f32[8]{0}",
                                             "pair{0} s32[]",
                                             "pair{1} pred[3]{0}",
                                             "tuple.8{0} f32[8]{0}",
                                             "tuple.8{1,0} s32[]",
                                             "tuple.8{1,1} pred[3]{0}"};
  EXPECT_EQ(names, expected);
  EXPECT_EQ(r.arrays[7].place, "computation fused_computation.1");
  EXPECT_TRUE(r.warnings.empty());
  // Shapes without tiles get the TPU's: f32[8,100] -> T(8,128), 4 KiB.
  const InputExplanation e = explain_input(r, {});
  const auto parameter = std::find_if(e.arrays.begin(), e.arrays.end(),
                                      [](const auto& a) { return a.input.name == "parameter 0"; });
  ASSERT_NE(parameter, e.arrays.end());
  EXPECT_EQ(parameter->layout, "f32[8,100]{1,0:T(8,128)}");
  EXPECT_EQ(parameter->size_bytes, 8 * 128 * 4);
}

TEST(ShapeText, EveryShapeWithLayout) {
  const InputReading r = read_input("a f32[3]{0} b s8[128,128] c bf16[5,7]{0,1}\nd u8[2]");
  ASSERT_EQ(r.arrays.size(), 2u);
  EXPECT_EQ(r.arrays[1].shape, "bf16[5,7]{0,1}");
  EXPECT_EQ(read_input("just s8[4,4] here").arrays.size(), 1u);
}

TEST(Shards, UnevenShardsRoundUp) {
  EXPECT_EQ(shard_dimensions({10, 128}, {4, 1}), (std::vector<int64_t>{3, 128}));
  EXPECT_THROW(shard_dimensions({10}, {4, 1}), Error);
  EXPECT_THROW(shard_dimensions({10}, {0}), Error);
  InputOptions options;
  options.shards = {8, 1};
  const auto e = explain_input(read_input("x f32[1001,256]{1,0}"), options);
  EXPECT_EQ(e.arrays[0].shard_dims, (std::vector<int64_t>{126, 256}));
  EXPECT_EQ(e.arrays[0].size_bytes, 128 * 256 * 4);
}

// Malformed, truncated and random input: read as far as it goes, warn, never crash.
TEST(Malformed, NeverThrowsAndWarns) {
  const std::string report = fixture("colabfold_62_padding.txt");
  for (std::size_t cut = 0; cut < report.size(); cut += 7) {
    const InputReading r = read_input(report.substr(0, cut));
    const InputExplanation e = explain_input(r, {});
    EXPECT_TRUE(!e.arrays.empty() || !e.warnings.empty()) << cut;
    // A number cut short is never said to disagree ("Unpadded size: 61.").
    for (const auto& a : e.arrays) EXPECT_TRUE(a.disagreements.empty()) << cut;
  }
  std::mt19937 random(11);
  const std::string alphabet = "f32s8[]{},:T()0123456789 \n%=.Shape:Size:";
  for (int i = 0; i < 300; ++i) {
    std::string text;
    for (int j = 0; j < 80; ++j) text += alphabet[random() % alphabet.size()];
    EXPECT_NO_THROW(explain_input(read_input(text), {}));
  }
  const InputReading latin1 = read_input(
      "Largest program allocations in hbm:\n 1. Size: 1\xff\n"
      " Shape: f32[8]{0}\n XLA label: caf\xe9 = f\n");
  ASSERT_EQ(latin1.arrays.size(), 1u);
  EXPECT_EQ(latin1.arrays[0].name, "caf\\xe9");
  EXPECT_EQ(latin1.arrays[0].reported_size, "");  // "1\\xff" is no size: a warning, not compared
  EXPECT_EQ(latin1.warnings.front(),
            "line 2: '1. Size: 1\\xff' is cut short or not a size XLA prints; not compared");
  const auto bad = explain_input(read_input("Shape: f32[3]{0:T(0)}\n Size: 1\n"), {});
  EXPECT_FALSE(bad.warnings.empty());
}

}  // namespace
}  // namespace tessera::inputs
