// The header examples of byte_runs.h, plan_check.h and local_plan.h; the byte-level
// cross-check against an independent model lives in tests/cli/test_npu_plan_cli.py.
#include "tessera/npu/plan_check.h"

#include <gtest/gtest.h>

#include <string>

#include "npu/spec_device.h"
#include "tessera/npu/byte_runs.h"
#include "tessera/npu/local_plan.h"

namespace tessera::npu {
namespace {

using test_support::expect_error;
using test_support::spec_device;

TEST(ByteRuns, AlignedTensorFoldsHWIntoOneRunPerChannelRow) {
  const LocalTensor t(spec_device(), {2, 5, 3, 4}, ElementType::kF32, 0, LocalLayout{});
  const std::vector<ByteRuns> runs = stored_byte_runs(t);
  EXPECT_EQ(runs[0], (ByteRuns{{0, 48}, {128, 176}, {256, 304}, {384, 432}}));
  EXPECT_EQ(runs[1], (ByteRuns{{0, 48}, {256, 304}}));
}

TEST(ByteRuns, CompactRowsMergeIntoOneRun) {
  LocalLayout compact;
  compact.kind = LayoutKind::kCompact;
  const LocalTensor t(spec_device(), {2, 4, 1, 3}, ElementType::kF32, 0, compact);
  EXPECT_EQ(stored_byte_runs(t)[0], (ByteRuns{{0, 24}}));  // n = 0, 1 back to back
}

TEST(ByteRuns, IntervalAlgebra) {
  const ByteRuns a{{0, 10}, {20, 30}};
  const ByteRuns b{{5, 25}};
  EXPECT_EQ(intersect_runs(a, b), (ByteRuns{{5, 10}, {20, 25}}));
  EXPECT_EQ(unite_runs(a, b), (ByteRuns{{0, 30}}));
  EXPECT_EQ(complement_runs(a, 0, 40), (ByteRuns{{10, 20}, {30, 40}}));
  EXPECT_EQ(banks_of(a, 16), (std::vector<int64_t>{0, 1}));
}

LocalPlan spec_plan(const std::string& second_address) {
  return parse_local_plan_text(R"({"device": "npus=4,lmem=1024,align=128", "tensors": [
      {"name": "in", "shape": [1, 6, 1, 8], "dtype": "f32", "address": 0},
      {"name": "x", "shape": [1, 1, 1, 8], "dtype": "f32", "address": )" +
                               second_address + "}]}");
}

TEST(PlanCheck, EmptyBlockReuseIsNotAnOverlap) {
  const PlanCheck check = check_local_plan(spec_plan("2176"));  // NPU 2, offset 128
  EXPECT_TRUE(check.overlaps.empty());
  // Both ways: x's bytes lie in in's band on NPU 2, and in's second channel row (NPUs 0, 1) lies
  // in x's one-row band, which every NPU reserves.
  ASSERT_EQ(check.empty_block_reuse.size(), 2u);
  EXPECT_EQ(check.empty_block_reuse[0].tensor, "in");
  EXPECT_EQ(check.empty_block_reuse[0].bytes, 64);
  EXPECT_EQ(check.empty_block_reuse[1].tensor, "x");
  EXPECT_EQ(check.empty_block_reuse[1].inside, "in");
  EXPECT_EQ(check.empty_block_reuse[1].npu, 2);
  EXPECT_EQ(check.empty_block_reuse[1].bytes, 32);
}

TEST(PlanCheck, OverlapNamesTheFirstCollidingElements) {
  const PlanCheck check = check_local_plan(spec_plan("128"));  // NPU 0, offset 128
  ASSERT_EQ(check.overlaps.size(), 1u);
  EXPECT_EQ(check.overlaps[0].bytes, 32);
  EXPECT_EQ(check.overlaps[0].a_element, (std::vector<int64_t>{0, 4, 0, 0}));
  EXPECT_EQ(check.overlaps[0].b_element, (std::vector<int64_t>{0, 0, 0, 0}));
}

TEST(PlanCheck, AutoTensorTakesTheFirstFreeAlignedBand) {
  const PlanCheck check = check_local_plan(spec_plan(R"("auto")"));
  ASSERT_TRUE(check.tensors[1].tensor.has_value());
  EXPECT_EQ(check.tensors[1].tensor->address(), 256);  // in's band is [0, 160)
  EXPECT_TRUE(check.overlaps.empty());
  EXPECT_TRUE(check.empty_block_reuse.empty());
}

TEST(PlanCheck, SmallestSlicesOfTheHeaderExample) {
  const LocalTensor t(spec_device(), {16, 4, 1, 32}, ElementType::kF32, 0, LocalLayout{});
  const std::vector<PlanSlice> slices = smallest_slices(t);
  ASSERT_EQ(slices.size(), 1u);
  EXPECT_EQ(slices[0].dim, 'N');
  EXPECT_EQ(slices[0].count, 2);
  EXPECT_EQ(slices[0].bytes_per_npu, 1024);
}

// A plan of `tensors` one-element f32 tensors, 64 bytes apart, on `npus` NPUs of 1 MiB.
LocalPlan many_tensors(int tensors, int npus) {
  std::string text =
      "{\"device\": \"npus=" + std::to_string(npus) + ",lmem=1048576,align=64\", \"tensors\": [";
  for (int i = 0; i < tensors; ++i) {
    text +=
        (i ? "," : "") + std::string("{\"name\": \"t") + std::to_string(i) +
        "\", \"shape\": [1, 1, 1, 1], \"dtype\": \"f32\", \"address\": " + std::to_string(64 * i) +
        "}";
  }
  return parse_local_plan_text(text + "]}");
}

// kMaxPlanComparisons: 362 tensors on 64 NPUs are 65341 pairs x 64 = 4181824 comparisons, under
// 2^22; 363 are 4204992, over. The 300 tensors on 65536 NPUs took 68 s and 3.7 GB before.
TEST(PlanCheck, ThePlanSizeIsBoundedBeforeAnyWork) {
  EXPECT_EQ(check_local_plan(many_tensors(362, 64)).tensors.size(), 362u);
  expect_error(ErrorKind::kUnsupported,
               "the plan compares 65703 tensor pairs on each of 64 NPUs: 4204992 comparisons; "
               "tessera checks plans of at most 4194304 (split the plan)",
               [] { check_local_plan(many_tensors(363, 64)); });
  expect_error(ErrorKind::kUnsupported, "44850 tensor pairs on each of 65536 NPUs",
               [] { check_local_plan(many_tensors(300, 65536)); });
}

// Comparing tensors walks their runs only where they come near each other, and at most
// kMaxPlanRunSteps of them (362 tensors of 64 runs per NPU at one address took 3.3 s).
TEST(PlanCheck, TheRunsWalkedAreBounded) {
  std::string text = R"({"device": "bm1684", "tensors": [)";
  for (int i = 0; i < 300; ++i) {
    text += (i ? "," : "") + std::string(R"({"name": "t)") + std::to_string(i) +
            R"(", "shape": [4, 64, 1, 8], "dtype": "f32", "address": 0})";
  }
  const LocalPlan plan = parse_local_plan_text(text + "]}");
  const PlanCheckOptions small{.max_listed = 1, .max_run_steps = 1000000};
  expect_error(ErrorKind::kUnsupported,
               "comparing them walks more than 1000000 byte runs (300 tensors storing 76800 runs)",
               [&] { check_local_plan(plan, small); });
  // The same tensors side by side (bands of 512 bytes) walk nothing: their runs never meet.
  LocalPlan apart = plan;
  for (std::size_t i = 0; i < apart.tensors.size(); ++i) {
    apart.tensors[i].tensor.address = std::to_string(i * 512);
  }
  const PlanCheck check = check_local_plan(apart, small);
  EXPECT_EQ(check.run_steps, 0);
  EXPECT_EQ(check.counts.overlaps, 0);
  EXPECT_TRUE(check.clean());
}

// Regression: the same plan, every tensor at address 0, made one overlap per pair and
// NPU: 65341 x 64 entries, 385 MB of JSON, 1.67 GB and an abort. Now one per pair, listed up to
// max_listed and counted whole.
TEST(PlanCheck, OverlapsAreOnePerPairCountedWholeAndListedUpToTheBound) {
  LocalPlan plan = many_tensors(362, 64);
  for (PlanTensor& t : plan.tensors) t.tensor.address = "0";
  const PlanCheck check = check_local_plan(plan, {.max_listed = 7});
  EXPECT_EQ(check.counts.overlaps, 362 * 361 / 2);
  ASSERT_EQ(check.overlaps.size(), 7u);
  const PlanOverlap& first = check.overlaps[0];
  EXPECT_EQ(first.a, "t0");
  EXPECT_EQ(first.b, "t1");
  EXPECT_EQ(first.npus, 1);  // one channel: NPU 0 only
  EXPECT_EQ(first.bytes, 4);
  EXPECT_EQ(first.byte_range, (ByteRun{0, 4}));
  EXPECT_EQ(first.a_element, (std::vector<int64_t>{0, 0, 0, 0}));
  EXPECT_FALSE(check.clean());
  EXPECT_EQ(plan_check_summary(check), "65341 overlapping tensor pairs");
  EXPECT_EQ(check_local_plan(plan, {.max_listed = 0}).overlaps.size(), 0u);
  expect_error(ErrorKind::kOutOfRange, "must be 0..100000, not -1",
               [&] { check_local_plan(plan, {.max_listed = -1}); });
}

TEST(PlanCheck, OneOverlapEntryCoversEveryNpu) {
  const PlanCheck check = check_local_plan(parse_local_plan_text(R"({"device": "bm1684",
      "tensors": [{"name": "a", "shape": [1, 64, 1, 8], "dtype": "f32", "address": 0},
                  {"name": "b", "shape": [1, 64, 1, 4], "dtype": "f32", "address": 16,
                   "layout": "compact"}]})"));
  ASSERT_EQ(check.overlaps.size(), 1u);
  EXPECT_EQ(check.overlaps[0].npus, 64);
  EXPECT_EQ(check.overlaps[0].first_npu, 0);
  EXPECT_EQ(check.overlaps[0].last_npu, 63);
  EXPECT_EQ(check.overlaps[0].bytes, 64 * 16);
  EXPECT_EQ(check.overlaps[0].byte_range, (ByteRun{16, 32}));
  EXPECT_EQ(check.overlaps[0].a_element, (std::vector<int64_t>{0, 0, 0, 4}));
}

TEST(PlanCheck, CleanMeansNoOverlapConflictOrMissingTensor) {
  EXPECT_TRUE(check_local_plan(spec_plan("256")).clean());
  const PlanCheck reuse = check_local_plan(spec_plan("2176"));  // empty-block reuse: a warning
  EXPECT_TRUE(reuse.clean());
  EXPECT_EQ(plan_check_summary(reuse), "clean (2 empty-block reuse warnings)");
  EXPECT_FALSE(check_local_plan(spec_plan("128")).clean());
  const PlanCheck past_the_end = check_local_plan(parse_local_plan_text(R"({"device":
      "npus=4,lmem=1024,align=128", "tensors": [
      {"name": "x", "shape": [1, 1, 1, 64], "dtype": "f32", "address": 896}]})"));
  EXPECT_EQ(past_the_end.counts.not_fitting, 1);
  EXPECT_FALSE(past_the_end.clean());
}

// Regression: the unplaced tensor's text said "see slices" beside an empty list (its
// slices were those of local memory, where it fits). Now the slices fit the longest free band.
TEST(PlanCheck, AnUnplacedTensorGetsSlicesThatFitTheFreeBand) {
  const PlanCheck check = check_local_plan(parse_local_plan_text(R"({"device":
      "npus=4,lmem=1024,align=128", "tensors": [
      {"name": "fixed", "shape": [1, 4, 1, 32], "dtype": "f32", "address": 256},
      {"name": "late", "shape": [6, 4, 1, 32], "dtype": "f32", "address": "auto"}]})"));
  const PlannedTensor& late = check.tensors[1];
  EXPECT_FALSE(late.tensor.has_value());
  EXPECT_EQ(late.free_band, 640);  // [384, 1024); [0, 256) is shorter
  EXPECT_NE(late.placement.find("the longest free band is 640 bytes"), std::string::npos);
  ASSERT_EQ(late.slices.size(), 1u);  // C and W slices keep the 128-byte channel rows
  EXPECT_EQ(late.slices[0].dim, 'N');
  EXPECT_EQ(late.slices[0].count, 2);
  EXPECT_EQ(late.slices[0].bytes_per_npu, 384);
  EXPECT_EQ(check.counts.not_placed, 1);
  EXPECT_EQ(plan_check_summary(check), "1 auto tensor not placed");
}

// Regression: "w": "best" never said which W, and the plan printed back said "best".
TEST(PlanCheck, BestWidthIsReportedAndPrintedAsItsNumber) {
  const PlanCheck check = check_local_plan(parse_local_plan_text(R"({"device":
      "npus=4,lmem=1024,align=128", "tensors": [
      {"name": "w", "rows": 2, "cols": 40, "w": "best", "dtype": "f32", "address": 0},
      {"name": "v", "rows": 2, "cols": 40, "w": "best", "dtype": "f32", "address": "auto"}]})"));
  EXPECT_EQ(check.tensors[0].matrix_width, 10);
  EXPECT_TRUE(check.tensors[0].best_width);
  EXPECT_EQ(check.tensors[1].matrix_width, 10);
  const auto json = plan_check_json(check);
  EXPECT_EQ(json["tensors"][0]["w"], 10);
  EXPECT_EQ(json["tensors"][0]["best_w"], true);
  EXPECT_EQ(json["plan"]["tensors"][0]["w"], 10);
  EXPECT_EQ(json["plan"]["tensors"][1]["w"], 10);
  EXPECT_NE(plan_check_text(check).find(", W 10 (best), fits"), std::string::npos);
}

TEST(LocalPlan, ErrorsNameTensorAndField) {
  expect_error(ErrorKind::kInvalid, "tensor 'in', field 'mode'", [] {
    parse_local_plan_text(R"({"device": "bm1684", "tensors": [
        {"name": "in", "shape": [1, 1, 1, 1], "dtype": "f32", "mode": "8N", "address": 0}]})");
  });
  expect_error(ErrorKind::kSyntax, "not valid JSON", [] { parse_local_plan_text("{"); });
  // A number no double holds is the JSON parser's out_of_range, not a parse_error (found by
  // fuzz_npu_plan: it escaped as an uncaught exception); the quoted number is cut short.
  expect_error(ErrorKind::kSyntax, "the plan is not valid JSON: [json.exception.out_of_range.406]",
               [] { parse_local_plan_text(R"({"device": 1e400})"); });
  expect_error(ErrorKind::kSyntax, "...",
               [] { parse_local_plan_text("{\"device\": 1" + std::string(400, '0') + "e400}"); });
  expect_error(ErrorKind::kSyntax, "key=value", [] { parse_tensor_spec("a:shape"); });
}

// Regression: nlohmann keeps the last of two keys and stops at a NUL byte.
TEST(LocalPlan, DuplicateKeysNulBytesAndUnprintableNamesAreRefused) {
  expect_error(ErrorKind::kSyntax,
               "the plan is not valid: tensors[0]: the key 'address' is given twice", [] {
                 parse_local_plan_text(R"({"device": "bm1684", "tensors": [
        {"name": "a", "shape": [1, 1, 1, 1], "dtype": "f32", "address": 0, "address": 128}]})");
               });
  expect_error(ErrorKind::kSyntax, "the plan is not valid JSON: byte 69 is a NUL byte", [] {
    parse_local_plan_text(std::string(R"({"device": "bm1684", "tensors": [{"name": "a", "shape": )"
                                      R"("1,1,1,1"}]})") +
                          '\0' + "garbage");
  });
  expect_error(ErrorKind::kInvalid,
               "tensors[0]: the name 'a\\u0001b' cannot be printed as it is: character 2 is the "
               "control character U+0001",
               [] {
                 parse_local_plan_text(R"({"device": "bm1684", "tensors": [
        {"name": "a\u0001b", "shape": [1, 1, 1, 1], "dtype": "f32", "address": 0}]})");
               });
  // From `explain npu --tensor` a name is the user's bytes, not JSON text.
  expect_error(ErrorKind::kInvalid, "the name 'a\\xc3' cannot be printed as it is: byte 2", [] {
    nlohmann::json plan = {{"device", "bm1684"}, {"tensors", nlohmann::json::array()}};
    plan["tensors"].push_back(parse_tensor_spec("a\xc3:shape=1,1,1,1:dtype=f32:address=0"));
    parse_local_plan(plan);
  });
  expect_error(ErrorKind::kInvalid,
               "field 'device': the alignment must be a power of two (1, 2, 4, ... bytes), got 3",
               [] {
                 parse_local_plan_text(R"({"device": "npus=4,lmem=1K,align=3", "tensors": [
        {"name": "a", "shape": [1, 1, 1, 1], "dtype": "f32", "address": 0}]})");
               });
}

}  // namespace
}  // namespace tessera::npu
