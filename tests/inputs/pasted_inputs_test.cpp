// What users paste: a report as a Python repr on any line of a traceback, today's
// one-line out-of-memory message, UTF-16 and byte order marks, log prefixes; HLO totals that
// count each buffer once; --shards refused for reports; a path that names no file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "tessera/error.h"
#include "tessera/inputs/input_arrays.h"
#include "tessera/inputs/input_explanation.h"

namespace tessera::inputs {
namespace {

std::string pasted_fixture(const std::string& name) {
  const auto path = std::filesystem::path(TESSERA_TESTS_DIR) / "inputs" / "fixtures" / name;
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string utf16(std::string_view ascii, bool little_endian, bool bom) {
  std::string out;
  if (bom) out = little_endian ? "\xFF\xFE" : "\xFE\xFF";
  for (char c : ascii) {
    out += little_endian ? std::string{c, '\0'} : std::string{'\0', c};
  }
  return out;
}

TEST(PastedInputs, ReprOnTheLastLineOfATraceback) {
  const InputReading reading = read_input(pasted_fixture("traceback_repr_oom.txt"));
  EXPECT_EQ(reading.format, InputFormat::kOomReport);
  ASSERT_EQ(reading.arrays.size(), 1u);
  EXPECT_EQ(reading.arrays[0].name, "iota.1");
  EXPECT_EQ(reading.arrays[0].shape, "s32[8388608,8,4]{2,1,0:T(8,128)}");
  EXPECT_EQ(reading.arrays[0].reported_size, "32.00G");
  EXPECT_EQ(reading.arrays[0].line, 6);  // the traceback's line the message is on
  ASSERT_EQ(reading.out_of_memory.size(), 1u);
  EXPECT_EQ(reading.out_of_memory[0].memory_space, "hbm");
  EXPECT_EQ(reading.out_of_memory[0].required, "32.55G");
  EXPECT_EQ(reading.out_of_memory[0].available, "15.48G");
  EXPECT_TRUE(reading.warnings.empty());
}

TEST(PastedInputs, ReprInsideALogLineWithAPrefix) {
  // JSON log fields escape quotes too; a glog prefix comes first.
  const std::string line =
      "E1127 08:58:08.123456  1234 train.cc:76] {\"error\": \"RESOURCE_EXHAUSTED: Ran out of "
      "memory in memory space hbm.\\n  1. Size: 1.00G\\n     Shape: f32[1024,256,1024]{2,1,0}\\n"
      "     XLA label: \\\"fusion.3 = fusion(a)\\\"\\n\"}";
  const InputReading reading = read_input("step 1\nstep 2\n" + line + "\nstep 3\n");
  ASSERT_EQ(reading.arrays.size(), 1u);
  EXPECT_EQ(reading.arrays[0].shape, "f32[1024,256,1024]{2,1,0}");
  EXPECT_EQ(reading.arrays[0].line, 3);
}

TEST(PastedInputs, BackslashNElsewhereStaysAsWritten) {
  const std::vector<std::string> lines = input_lines(
      "HloModule m\n%c = s8[3]{0} constant({1, 2, 3}), metadata={op_name=\"a\\nb\"}\nnext");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_NE(lines[1].find("a\\nb"), std::string::npos);
}

TEST(PastedInputs, TodaysOneLineMessageNamesNoArray) {
  const InputReading reading = read_input(pasted_fixture("libtpu_oom_traceback.txt"));
  EXPECT_TRUE(reading.arrays.empty());
  EXPECT_TRUE(reading.warnings.empty());  // not "no shape found": the summary is what it holds
  ASSERT_EQ(reading.out_of_memory.size(), 1u);
  const OutOfMemory& oom = reading.out_of_memory[0];
  EXPECT_EQ(oom.memory_space, "hbm");
  EXPECT_EQ(oom.what, "HLO temporaries");
  EXPECT_EQ(oom.required, "256.01G");
  EXPECT_EQ(oom.available, "15.75G");
  const std::string text = input_explanation_text(explain_input(reading, {}), 20);
  EXPECT_NE(text.find("HLO temporaries need 256.01G of hbm, which holds 15.75G"),
            std::string::npos);
  EXPECT_NE(text.find("after_optimizations.txt"), std::string::npos) << text;
}

TEST(PastedInputs, EveryGenerationsMessageFromTheCompiler) {
  // tests/fixtures/tpu_oracle/oom_messages.json: libtpu's words on every generation.
  for (const char* available : {"7.48G", "15.48G", "15.25G", "15.75G", "95.74G", "31.25G"}) {
    const std::string message =
        std::string(
            "RESOURCE_EXHAUSTED: Ran out of memory on HBM, the total memory required for "
            "HLO temporaries (512.00G) exceeds available HBM (") +
        available + ").";
    const auto found = find_out_of_memory(message);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].required, "512.00G");
    EXPECT_EQ(found[0].available, available);
  }
}

TEST(PastedInputs, TheRuntimesWordsForABufferThatDoesNotFit) {
  const auto reserve = find_out_of_memory(
      "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Error allocating device buffer: "
      "Attempting to reserve 12.00G at the bottom of memory. That was not possible. There are "
      "10.03G free, 0B reserved, and 10.03G reservable.");
  ASSERT_EQ(reserve.size(), 1u);
  EXPECT_EQ(reserve[0].what, "the allocation");
  EXPECT_EQ(reserve[0].required, "12.00G");
  EXPECT_EQ(reserve[0].available, "10.03G");
  const auto allocate = find_out_of_memory(
      "RESOURCE_EXHAUSTED: Attempting to allocate 8.00G. That was not possible. There are 6.23G "
      "free, 0B reserved, and 6.23G reservable.");
  ASSERT_EQ(allocate.size(), 1u);
  EXPECT_EQ(allocate[0].required, "8.00G");
  EXPECT_EQ(allocate[0].available, "6.23G");
}

TEST(PastedInputs, Utf16AndByteOrderMarks) {
  const std::string report = pasted_fixture("easydel_166_newer_layout.txt");
  const InputReading plain = read_input(report);
  ASSERT_EQ(plain.arrays.size(), 1u);
  // PowerShell's `>`: UTF-16 little endian with a BOM and CRLF (the fixture is one).
  const InputReading powershell = read_input(pasted_fixture("powershell_utf16.txt"));
  ASSERT_EQ(powershell.arrays.size(), 1u);
  EXPECT_EQ(powershell.arrays[0].shape, plain.arrays[0].shape);
  EXPECT_EQ(powershell.arrays[0].line, plain.arrays[0].line);
  for (bool little : {true, false}) {
    for (bool bom : {true, false}) {
      const InputReading r = read_input(utf16(report, little, bom));
      ASSERT_EQ(r.arrays.size(), 1u) << little << bom;
      EXPECT_EQ(r.arrays[0].shape, plain.arrays[0].shape);
    }
  }
  EXPECT_EQ(read_input("\xEF\xBB\xBF" + report).arrays.size(), 1u);
  // A lone surrogate and an odd last byte become U+FFFD, not a crash.
  const auto odd = utf8_input_text(std::string("\xFF\xFE\x00\xD8x", 5));
  ASSERT_TRUE(odd.has_value());
  EXPECT_EQ(*odd, "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_FALSE(utf8_input_text("f32[8]{0}").has_value());
}

TEST(PastedInputs, HloTotalsCountEachBufferOnce) {
  const InputReading reading = read_input(pasted_fixture("libtpu_oom_after_optimizations.hlo"));
  const InputExplanation e = explain_input(reading, {});
  // x.1, copy-start's destination and context, and the fusion: the entry layout's entries,
  // copy-start's source, copy-done and the fused computations' values are other names.
  EXPECT_EQ(e.buffers, 4u);
  int64_t counted = 0;
  for (const ArrayExplanation& a : e.arrays) {
    if (a.input.same_buffer.empty()) counted += a.size_bytes;
    if (a.input.name == "param_0" || a.input.name == "copy-done" || a.input.name == "result" ||
        a.input.name == "copy-start{1}" || a.input.name == "bitcast") {
      EXPECT_FALSE(a.input.same_buffer.empty()) << a.input.name;
    }
    if (a.input.name == "fusion" || a.input.name == "x.1") {
      EXPECT_TRUE(a.input.same_buffer.empty()) << a.input.name << ": " << a.input.same_buffer;
    }
  }
  EXPECT_EQ(e.total_size_bytes, counted);
  const std::string text = input_explanation_text(e, 0);
  EXPECT_NE(text.find("4 buffers of the 16 arrays read"), std::string::npos) << text;
}

TEST(PastedInputs, HandWrittenModuleTuplesAndWhileState) {
  const InputExplanation e = explain_input(read_input(pasted_fixture("hlo_tuple_fusion.hlo")), {});
  std::map<std::string, std::string> same;
  for (const ArrayExplanation& a : e.arrays) same[a.input.name] = a.input.same_buffer;
  EXPECT_EQ(same["Arg_0.1"], "");
  EXPECT_EQ(same["fusion"], "");
  EXPECT_NE(same["tuple.8{0}"], "");   // a tuple of other instructions' buffers
  EXPECT_NE(same["param_0.1"], "");    // inside the fused computation
  EXPECT_NE(same["state{1}"], "");     // the while body's parameter
  EXPECT_NE(same["gte.5"], "");        // an element of the state
  EXPECT_NE(same["parameter 0"], "");  // the entry layout's: Arg_0.1's buffer
  EXPECT_NE(same["result{1,1}"], "");
}

TEST(PastedInputs, ShardsAreRefusedForReportsAndSaidOnceForOtherRanks) {
  InputOptions options;
  options.shards = {8, 1, 1};
  try {
    explain_input(read_input(pasted_fixture("jax_7502_padding.txt")), options);
    FAIL() << "--shards on a report";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("already one device's"), std::string::npos);
  }
  const InputExplanation e = explain_input(
      read_input("a f32[80,100,3]{2,1,0} b f32[7]{0} c f32[9]{0} d s8[3]{0}\n"), options);
  ASSERT_EQ(e.warnings.size(), 1u);
  EXPECT_EQ(e.warnings[0],
            "--shards 8,1,1 splits arrays of rank 3: 3 arrays of another rank are explained whole");
  for (const ArrayExplanation& a : e.arrays) {
    EXPECT_TRUE(a.error.empty()) << a.error;
    EXPECT_GT(a.size_bytes, 0) << a.input.shape;
  }
}

TEST(PastedInputs, IdenticalShapesExplainedAlike) {
  std::string log;
  for (int i = 0; i < 50; ++i) log += "step " + std::to_string(i) + ": f32[1000,3]{1,0} ok\n";
  const InputExplanation e = explain_input(read_input(log), {});
  ASSERT_EQ(e.arrays.size(), 50u);
  for (const ArrayExplanation& a : e.arrays) {
    EXPECT_EQ(a.layout, e.arrays[0].layout);
    EXPECT_EQ(a.fixes.size(), e.arrays[0].fixes.size());
  }
  EXPECT_EQ(e.total_size_bytes, 50 * e.arrays[0].size_bytes);
}

TEST(PastedInputs, PathsThatNameNoFile) {
  EXPECT_TRUE(looks_like_path("reprot.txt"));
  EXPECT_TRUE(looks_like_path("dump/module_0001.after_optimizations.txt"));
  EXPECT_TRUE(looks_like_path("C:\\logs\\oom"));
  EXPECT_FALSE(looks_like_path("f32[8,128]"));
  EXPECT_FALSE(looks_like_path("f32[8,128]{1,0:T(8,128)}"));
  EXPECT_FALSE(looks_like_path("f32"));
  EXPECT_FALSE(looks_like_path(""));
}

}  // namespace
}  // namespace tessera::inputs
