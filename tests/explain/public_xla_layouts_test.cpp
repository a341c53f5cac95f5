// Layouts XLA printed on real TPUs (public OOM reports and HLO dumps), as data: written without
// tiles, tessera chooses the same string under the named generation, the string round-trips
// byte for byte, and sizes match the report's "Size" and "Unpadded size".
#include <gtest/gtest.h>

#include "explain/test_support.h"
#include "tessera/explain/xla_sizes.h"
#include "tessera/tpu/target_profile.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::explain {
namespace {

struct PublicLayout {
  const char* printed;  // exactly as XLA printed it
  const char* target;   // a generation that chooses it
  int64_t size_bytes;
  int64_t unpadded;
  const char* source;
};

const PublicLayout kPublicLayouts[] = {
    {"s32[8388608,8,4]{2,1,0:T(8,128)}", "tpu", 32 * kGiB, 1 * kGiB, "flowpm#27: 32.00G / 1.00G"},
    {"s32[8388608,8,4]{0,2,1:T(4,128)}", "tpu", 1 * kGiB, 1 * kGiB, "flowpm#27 XLA label"},
    {"f32[1024,245,64]{1,2,0:T(8,128)}", "tpu", 64 * kMiB, 64225280,
     "ColabFold#62: 64.00M / 61.25M"},
    {"f32[245,512,256]{2,1,0:T(8,128)}", "tpu", 245 * 512 * 256 * 4, 245 * 512 * 256 * 4,
     "ColabFold#62 XLA label"},
    {"bf16[512,16,3072]{2,1,0:T(8,128)(2,1)}", "tpu", 48 * kMiB, 48 * kMiB,
     "pytorch/xla#1965: unpadded 48.00M"},
    {"bf16[6291456,4]{1,0:T(8,128)(2,1)}", "tpu-v3", 6291456LL * 128 * 2, 48 * kMiB,
     "pytorch/xla#1965 XLA label (operand)"},
    {"f32[]{:T(256)}", "tpu", 1 * kKiB, 4, "ColabFold#62 XLA label"},
    {"bf16[]{:T(512)(2,1)}", "tpu", 2 * kKiB, 2,
     "OOM report XLA label (size by the spec: (2,1) pads one row to 2)"},
    {"f32[256]{0:T(256)}", "tpu", 1 * kKiB, 1 * kKiB, "OOM report XLA labels"},
    {"f32[512]{0:T(512)}", "tpu", 2 * kKiB, 2 * kKiB, "OOM report XLA labels"},
    {"f32[1280]{0:T(1024)}", "tpu", 8 * kKiB, 5 * kKiB, "OOM report XLA labels"},
    {"f32[524288]{0:T(1024)}", "tpu", 2 * kMiB, 2 * kMiB, "OOM report XLA labels"},
    {"pred[67108864]{0:T(1024)E(32)}", "tpu", 256 * kMiB, 64 * kMiB, "OOM report XLA labels"},
    {"pred[64,512,2048]{2,1,0:T(8,128)E(32)}", "tpu", 256 * kMiB, 64 * kMiB,
     "2020 OOM reports: 256.00M, unpadded 64.00M, 4.0x expansion"},
    {"pred[128,512]{0,1:T(8,128)(4,1)}", "tpu-v4", 64 * kKiB, 64 * kKiB, "2023 t5x dumps"},
    {"bf16[2048,1,2048,128]{0,1,3,2:T(4,128)(2,1)}", "tpu", 4 * kGiB, 1 * kGiB,
     "pytorch/xla#6674: 4x expansion"},
    {"bf16[2,8192]{1,0:T(2,128)(2,1)}", "tpu", 32 * kKiB, 32 * kKiB, "2025 TPU HLO dumps"},
    {"bf16[1,6144]{1,0:T(2,128)(2,1)}", "tpu-v6e", 24 * kKiB, 12 * kKiB, "2025 TPU HLO dumps"},
    {"bf16[1,4096]{1,0:T(2,128)(2,1)}", "tpu-v6e", 16 * kKiB, 8 * kKiB, "2025 TPU HLO dumps"},
};

class PublicXlaLayouts : public ::testing::TestWithParam<PublicLayout> {};

TEST_P(PublicXlaLayouts, ChosenRoundTrippedAndSizedAsXlaSaid) {
  const PublicLayout& p = GetParam();
  const xla::Shape printed = xla::parse_shape(p.printed);
  EXPECT_EQ(xla::print_shape(printed), p.printed) << p.source;
  xla::Shape untiled = printed;
  untiled.layout.tiles.clear();
  untiled.layout.element_size_in_bits = 0;
  // The public reports are the 2020 era's evidence (xla_era.h).
  EXPECT_EQ(xla::print_shape(
                tpu::apply_target(untiled, tpu::parse_tpu_target(p.target, tpu::XlaEra::k2020))),
            p.printed)
      << p.source;
  EXPECT_EQ(xla::TiledLayout(printed).size_bytes(), p.size_bytes) << p.source;
  EXPECT_EQ(unpadded_bytes(printed), p.unpadded) << p.source;
}

INSTANTIATE_TEST_SUITE_P(OomReportsAndHloDumps, PublicXlaLayouts,
                         ::testing::ValuesIn(kPublicLayouts));

// The report's words: sizes as flowpm#27, pytorch/xla#1735 and ColabFold#62 print them.
TEST(XlaSizes, TextAsTheOomReportPrintsIt) {
  EXPECT_EQ(xla_size_text(0), "0B");
  EXPECT_EQ(xla_size_text(512), "512B");
  EXPECT_EQ(xla_size_text(1023), "1023B");
  EXPECT_EQ(xla_size_text(4096), "4.0K");
  EXPECT_EQ(xla_size_text(1536), "1.5K");
  EXPECT_EQ(xla_size_text(256 * kMiB), "256.00M");
  EXPECT_EQ(xla_size_text(31 * kGiB), "31.00G");
  EXPECT_EQ(xla_size_text(64225280), "61.25M");
  EXPECT_EQ(xla_size_text(554696704), "529.00M");
  EXPECT_EQ(xla_size_text(12345678), "11.77M");
  EXPECT_EQ(xla_size_text(-2735391744), "-2.55G");
  EXPECT_EQ(xla_expansion_text(32 * kGiB, kGiB), "32.0x expansion");
  EXPECT_EQ(xla_expansion_text(64 * kMiB, 64225280), "1.0x expansion");
}

// XLA's ByteWidth is ceil(bits / 8): pred and sub-byte types count one byte each.
TEST(XlaSizes, UnpaddedBytesCountsWholeBytesPerElement) {
  EXPECT_EQ(unpadded_bytes(xla::parse_shape("pred[64,512,2048]")), 64 * kMiB);
  EXPECT_EQ(unpadded_bytes(xla::parse_shape("s4[1024]{0:T(1024)(128)(8,1)E(4)}")), 1024);
  EXPECT_EQ(unpadded_bytes(xla::parse_shape("c64[3]")), 24);
  EXPECT_EQ(unpadded_bytes(xla::parse_shape("f32[]")), 4);
}

}  // namespace
}  // namespace tessera::explain
