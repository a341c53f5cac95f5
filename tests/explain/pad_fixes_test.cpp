// The `pad` fix (pad_fixes.h): when a pad is offered, and what its change line says.
#include "tessera/explain/pad_fixes.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "explain/test_support.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::explain {
namespace {

// tpu-v3 in era 2020, the era these tests were written for (pred as `pred` says).

xla::Shape tpu_shape(const std::string& text) {
  return tpu::apply_target(xla::parse_shape(text), tpu_2020());
}

int64_t size_of(const xla::Shape& shape) {
  return xla::TiledLayout(shape).size_bytes();
}

std::vector<ProgramFix> fixes_of(const xla::Shape& shape, const ShardSplit& split = {}) {
  return program_fixes(shape, size_of(shape), tpu_2020(tpu::PredStorage::kFourBytes), 100, split);
}

const ProgramFix* first_of_kind(const std::vector<ProgramFix>& fixes, const std::string& kind) {
  const auto it =
      std::find_if(fixes.begin(), fixes.end(), [&](const auto& f) { return f.kind == kind; });
  return it == fixes.end() ? nullptr : &*it;
}

// Why a pad alone is almost never a fix: on the TPU profile the size never drops when a dim grows
// by one, for every dim of every small shape of every element width, except a 16-bit second
// minor dim of 1 -> 2 (4 rows -> 2 rows on tpu-v2..v5p).
TEST(PadFixes, PaddingADimAloneNeverSavesBytes) {
  const std::vector<int64_t> sizes = {1, 2, 3, 4, 5, 7, 8, 9, 16, 127, 128, 129, 255};
  for (const char* type : {"f32", "bf16", "s8", "s4", "pred", "f64"}) {
    for (int64_t a : sizes) {
      for (int64_t b : sizes) {
        for (int64_t c : {1, 3, 8}) {
          const std::vector<int64_t> dims = {c, a, b};
          for (std::size_t k = 0; k < dims.size(); ++k) {
            xla::Shape shape = xla::parse_shape(fmt::format("{}[{},{},{}]", type, c, a, b));
            xla::Shape grown = shape;
            grown.dimensions[k] += 1;
            const bool quirk = std::string(type) == "bf16" && k == 1 && a == 1;
            const int64_t before = size_of(tpu::apply_target(shape, tpu_2020()));
            const int64_t after = size_of(tpu::apply_target(grown, tpu_2020()));
            if (quirk) {
              EXPECT_EQ(after * 2, before) << xla::print_shape(shape);
            } else {
              EXPECT_GE(after, before) << xla::print_shape(shape) << " dim " << k;
            }
          }
        }
      }
    }
  }
}

TEST(PadFixes, PadThatEnablesRowsOf128Lanes) {
  const xla::Shape shape = tpu_shape("f32[10,100,3]");
  EXPECT_EQ(size_of(shape), 520 * kKiB);
  const auto fixes = fixes_of(shape);
  ASSERT_FALSE(fixes.empty());
  EXPECT_EQ(fixes[0].kind, "pad");
  EXPECT_EQ(fixes[0].layout, "f32[30,128]{1,0:T(8,128)}");
  EXPECT_EQ(fixes[0].size_bytes, 16 * kKiB);
  EXPECT_EQ(fixes[0].bytes_saved, 504 * kKiB);
  EXPECT_EQ(fixes[0].change, "jnp.pad(x, ((0, 0), (0, 28), (0, 0))).reshape(30, 128)");
  // It beats every fix without padding (the reorder's 20 KiB, the reshape's 24 KiB) ...
  for (const auto& f : fixes) {
    if (f.kind != "pad") {
      EXPECT_GT(f.size_bytes, fixes[0].size_bytes) << f.layout;
    }
  }
  // ... and is the only pad: the others do not beat those.
  EXPECT_EQ(std::count_if(fixes.begin(), fixes.end(), [](auto& f) { return f.kind == "pad"; }), 1);
}

// The quirk as a fix: bf16[1,1,100] takes 4 rows of 128 lanes; padded to bf16[1,2,100], 2 rows.
// No reorder or reshape helps (every order keeps a second minor of 1, or 100 rows).
TEST(PadFixes, SixteenBitSecondMinorOfOnePaddedToTwo) {
  const xla::Shape shape = tpu_shape("bf16[1,1,100]");
  EXPECT_EQ(size_of(shape), 1024);
  const auto fixes = fixes_of(shape);
  ASSERT_FALSE(fixes.empty());
  EXPECT_EQ(fixes[0].kind, "pad");
  EXPECT_EQ(fixes[0].layout, "bf16[1,2,100]{2,1,0:T(2,128)(2,1)}");
  EXPECT_EQ(fixes[0].size_bytes, 512);
  EXPECT_EQ(fixes[0].change, "jnp.pad(x, ((0, 0), (0, 1), (0, 0)))");
  // tpu-v6e keeps 2 rows for a second minor of 1: nothing to pad there.
  const tpu::TpuTarget tpu_v6e = tpu::parse_tpu_target("tpu-v6e", tpu::XlaEra::k2020);
  const xla::Shape v6e = tpu::apply_target(xla::parse_shape("bf16[1,1,100]"), tpu_v6e);
  EXPECT_EQ(first_of_kind(program_fixes(v6e, size_of(v6e), tpu_v6e, 100, {}), "pad"), nullptr);
}

// GPT-2's vocabulary 50257 -> 50304: the TPU's tiles already take 50304 lanes per row, so the
// pad saves nothing, whole or sharded; no pad is offered.
TEST(PadFixes, VocabularyPadSavesNothingAndIsNotOffered) {
  const xla::Shape logits = tpu_shape("f32[4096,50257]");
  xla::Shape padded = logits;
  padded.dimensions[1] = 50304;
  EXPECT_EQ(size_of(padded), size_of(logits));
  EXPECT_EQ(first_of_kind(fixes_of(logits), "pad"), nullptr);
  // 8 devices along the vocabulary: ceil(50257 / 8) = 6283 -> 6400 lanes; 51200 = 8 * 6400
  // evens the shards out and costs the same 6400 lanes per device.
  const xla::Shape shard = tpu_shape("f32[4096,6283]");
  xla::Shape even = shard;
  even.dimensions[1] = 51200 / 8;
  EXPECT_EQ(size_of(even), size_of(shard));
  EXPECT_EQ(first_of_kind(fixes_of(shard, {{4096, 50257}, {1, 8}}), "pad"), nullptr);
}

// Uneven shards: f32[1997,100,3] split 8 ways along dim 0 holds ceil(1997/8) = 250 rows per
// device (XLA pads the last shard). Padding the global dim by 51 to 2048 = 8 * 256 makes each
// shard 256 x 300 = 600 rows of 128 lanes: 300 KiB instead of 12.7 MiB per device.
TEST(PadFixes, UnevenShardsPadGloballyAndReshapePerShard) {
  const xla::Shape shard = tpu_shape("f32[250,100,3]");
  EXPECT_EQ(size_of(shard), 13312000);
  const auto fixes = fixes_of(shard, {{1997, 100, 3}, {8, 1, 1}});
  ASSERT_FALSE(fixes.empty());
  EXPECT_EQ(fixes[0].kind, "pad");
  EXPECT_EQ(fixes[0].layout, "f32[600,128]{1,0:T(8,128)}");
  EXPECT_EQ(fixes[0].size_bytes, 300 * kKiB);
  EXPECT_EQ(fixes[0].change,
            "jnp.pad(x, ((0, 51), (0, 0), (0, 0))) (every shard 256 along dim 0); then per shard, "
            "e.g. in shard_map: x.reshape(600, 128)");
  // A reshape of a sharded array is of each shard too.
  const ProgramFix* reshape = first_of_kind(fixes, "reshape");
  ASSERT_NE(reshape, nullptr);
  EXPECT_EQ(reshape->change, "per shard, e.g. in shard_map: x.reshape(250, 300)");
  // Even shards of a dim that is not padded: the pad is still global, the reshape per shard.
  const auto even = fixes_of(tpu_shape("f32[10,100,3]"), {{80, 100, 3}, {8, 1, 1}});
  ASSERT_FALSE(even.empty());
  EXPECT_EQ(even[0].change,
            "jnp.pad(x, ((0, 0), (0, 28), (0, 0))) (every shard 128 along dim 1); then per shard, "
            "e.g. in shard_map: x.reshape(30, 128)");
}

TEST(PadFixes, NothingForShapesWithoutDimsOrWithHugeDims) {
  EXPECT_TRUE(
      pad_fixes(tpu_shape("f32[]"), tpu_2020(tpu::PredStorage::kFourBytes), {}, 1 << 30).empty());
  // round_up past int64 is no fix, never a crash.
  const xla::Shape huge = xla::parse_shape("s8[9223372036854775807,3]{1,0}");
  EXPECT_NO_THROW(pad_fixes(
      huge, tpu::parse_tpu_target("none", tpu::XlaEra::k2020, tpu::PredStorage::kFourBytes), {},
      1));
}

}  // namespace
}  // namespace tessera::explain
