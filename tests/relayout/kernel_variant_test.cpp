// Kernel variants (kernel_variant.h): names that parse back to themselves, refusals that say what
// is wrong, and every candidate variant of every kernel class writing the same bytes as the model
// on problems that reach that class's kernel (streamed and not, 1 and 2 threads).
#include "relayout/kernel_variant.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "relayout/plan_internals.h"
#include "support/random_bytes.h"
#include "tessera/error.h"
#include "tessera/relayout/layout_operand.h"
#include "tessera/relayout/planner.h"
#include "tessera/relayout/relayout_plan.h"

namespace tessera::relayout {
namespace {

using Bytes = std::vector<std::byte>;

TEST(KernelVariant, CandidateNamesParseBackToThemselves) {
  for (const KernelClass k : tuned_classes()) {
    const std::vector<KernelVariant> candidates = candidate_variants(k);
    ASSERT_FALSE(candidates.empty()) << kernel_class_name(k);
    EXPECT_EQ(candidates[0], model_variant(k)) << kernel_class_name(k);
    for (const KernelVariant& v : candidates) {
      const std::string name = variant_name(k, v);
      const KernelVariant again = resolved(apply_tokens(model_variant(k), parse_variant(name)));
      EXPECT_EQ(variant_name(k, again), name) << kernel_class_name(k);
    }
    EXPECT_EQ(kernel_class_named(kernel_class_name(k)), k);
  }
}

// The token table is the one vocabulary: every token it lists parses, and every candidate's name
// is made of listed tokens (or the best SIMD target's own name).
TEST(KernelVariant, NamesUseOnlyTheListedTokens) {
  std::vector<std::string> listed;
  for (const VariantTokenGroup& g : variant_tokens()) {
    for (const std::string& t : g.tokens) {
      EXPECT_NO_THROW(parse_variant(t)) << t;
      listed.push_back(t);
    }
  }
  for (const KernelClass k : tuned_classes()) {
    for (const KernelVariant& v : candidate_variants(k)) {
      const std::string name = variant_name(k, v);
      std::size_t start = 0;
      while (start <= name.size()) {
        const std::size_t end = std::min(name.find('-', start), name.size());
        const std::string token = name.substr(start, end - start);
        const bool simd = parse_variant(token).simd;
        EXPECT_TRUE(simd || std::find(listed.begin(), listed.end(), token) != listed.end())
            << token << " in " << name;
        start = end + 1;
      }
    }
  }
}

TEST(KernelVariant, PartialNamesSetOnlyTheirTokens) {
  const VariantTokens t = parse_variant("r64-l2");
  EXPECT_TRUE(t.band_rows && t.prefetch);
  EXPECT_FALSE(t.walk || t.store || t.simd || t.group_lines || t.huge_pages);
  const KernelVariant v = apply_tokens(model_variant(KernelClass::kTranspose), t);
  EXPECT_EQ(v.band_rows, 64);
  EXPECT_EQ(v.prefetch, Prefetch::kL2);
  EXPECT_EQ(v.store, StoreMode::kStaged);  // the model's
}

TEST(KernelVariant, UnknownOrRepeatedTokensAreRefusedByName) {
  try {
    parse_variant("r64-fast");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalid);
    EXPECT_NE(e.message().find("unknown token 'fast'"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("r16, r32"), std::string::npos) << e.message();
  }
  try {
    parse_variant("l1-l2");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("a second value for the same parameter 'l2'"), std::string::npos)
        << e.message();
  }
  try {
    parse_variant("r64-\xff");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("'\\xff'"), std::string::npos) << e.message();
  }
  EXPECT_THROW(parse_variant("r48"), Error);
  EXPECT_THROW(parse_variant("r64-"), Error);
  // Plans refuse the same way.
  const LayoutOperand a = parse_layout_operand("f32[16,16]{1,0}");
  const LayoutOperand b = parse_layout_operand("f32[16,16]{0,1}");
  EXPECT_THROW(ForcedVariant::parse("staged-r100"), Error);
}

// Problems whose largest piece is each class's kernel (small: a few hundred KiB at most).
struct Problem {
  const char* from;
  const char* to;
  KernelClass expected;
};

const Problem kProblems[] = {
    {"f32[64,1024]{1,0:T(8,128)}", "f32[64,1024]{1,0}", KernelClass::kRuns},
    {"f32[64,2048]{1,0}", "f32[64,2048]{1,0:T(8,128)}", KernelClass::kRunsTile},
    {"f32[60,2000]{1,0}", "f32[60,2000]{1,0:T(8,128)}", KernelClass::kRunsTile},
    {"f32[2,256,8,8]{3,2,1,0}", "npu:npus=64,lmem=65536,align=64:2,256,8,8:f32:0:aligned",
     KernelClass::kRunsSpread},
    {"f32[272,400]{1,0}", "f32[272,400]{0,1}", KernelClass::kTranspose},
    {"f32[520,384]{1,0}", "f32[520,384]{0,1}", KernelClass::kTranspose},
    {"f32[256,512]{1,0:T(8,128)}", "f32[256,512]{0,1:T(8,128)}", KernelClass::kTileTranspose},
    {"f32[264,384]{1,0:T(8,128)}", "f32[264,384]{0,1}", KernelClass::kTileTranspose},
    {"f32[256,512]{0,1}", "f32[256,512]{1,0:T(8,128)}", KernelClass::kTileGather},
    {"bf16[64,512]{1,0}", "bf16[64,512]{1,0:T(8,128)(2,1)}", KernelClass::kInterleave},
    {"s8[128,512]{1,0}", "s8[128,512]{1,0:T(32,128)(4,1)}", KernelClass::kInterleave},
    {"bf16[64,512]{1,0:T(8,128)(2,1)}", "bf16[64,512]{1,0}", KernelClass::kDeinterleave},
    {"pred[64,512]{1,0}", "pred[64,512]{1,0:T(32,128)(32,1)E(1)}", KernelClass::kPackBits},
};

Bytes run(const LayoutOperand& from, const LayoutOperand& to, const Bytes& source,
          const RelayoutOptions& options) {
  Bytes destination(static_cast<std::size_t>(to.map->size_bytes()), std::byte{0x5A});
  plan(*from.map, *to.map, options).execute(source, destination);
  return destination;
}

TEST(KernelVariant, EveryCandidateOfEveryClassWritesTheSameBytes) {
  std::mt19937_64 rng(41);
  std::vector<KernelClass> covered;
  for (const Problem& p : kProblems) {
    const LayoutOperand from = parse_layout_operand(p.from);
    const LayoutOperand to = parse_layout_operand(p.to);
    const Bytes source = test_support::random_bytes(from.map->size_bytes(), rng);
    const Bytes expected = run(from, to, source, {.threads = 1});
    ASSERT_EQ(main_kernel_class(plan(*from.map, *to.map, {.threads = 1, .streaming_bytes = 0})),
              p.expected)
        << p.from << " -> " << p.to;
    covered.push_back(p.expected);
    for (const KernelVariant& v : candidate_variants(p.expected)) {
      const std::string name = variant_name(p.expected, v);
      for (const int threads : {1, 2}) {
        for (const int64_t streaming : {int64_t{0}, int64_t{-1}}) {
          const RelayoutOptions options{.threads = threads,
                                        .streaming_bytes = streaming,
                                        .variant = ForcedVariant::parse(name)};
          EXPECT_EQ(run(from, to, source, options), expected)
              << p.from << " -> " << p.to << " variant " << name << " threads " << threads
              << " streaming_bytes " << streaming;
        }
      }
    }
  }
  for (const KernelClass k : tuned_classes()) {
    EXPECT_NE(std::find(covered.begin(), covered.end(), k), covered.end()) << kernel_class_name(k);
  }
}

TEST(KernelVariant, DescribeSaysWhereEachChoiceCameFrom) {
  const LayoutOperand from = parse_layout_operand("f32[272,400]{1,0}");
  const LayoutOperand to = parse_layout_operand("f32[272,400]{0,1}");
  const std::string model = plan(*from.map, *to.map, {.threads = 1}).describe();
  EXPECT_NE(model.find(", variant staged-r"), std::string::npos) << model;
  EXPECT_NE(model.find(" (model)"), std::string::npos) << model;
  const std::string forced =
      plan(*from.map, *to.map, {.threads = 1, .variant = ForcedVariant::parse("r64-pf0")})
          .describe();
  EXPECT_NE(forced.find("-r64-pf0"), std::string::npos) << forced;
  EXPECT_NE(forced.find(" (forced)"), std::string::npos) << forced;
}

}  // namespace
}  // namespace tessera::relayout
