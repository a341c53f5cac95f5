// Footprint: which NPUs a tensor touches, its span per NPU, data, dummies and waste.
#include "tessera/npu/footprint.h"

#include <gtest/gtest.h>

#include "npu/spec_device.h"
#include "tessera/error.h"
#include "tessera/npu/matrix_layout.h"
#include "tessera/npu/npu_arguments.h"

namespace tessera::npu {
namespace {

using test_support::spec_device;

std::vector<int64_t> spans(const Footprint& fp) {
  std::vector<int64_t> out;
  for (const NpuFootprint& npu : fp.npus) out.push_back(npu.span_bytes);
  return out;
}

TEST(Footprint, AlignedExampleAtNpuTwo) {
  // f32 (2,3,4,5) at NPU 2: channels 0,1 on NPUs 2,3 (row 0), channel 2 on NPU 0 (row 1).
  const LocalTensor tensor(spec_device(), {2, 3, 4, 5}, ElementType::kF32, 2048, LocalLayout{});
  const Footprint fp = footprint(tensor);
  EXPECT_EQ(fp.npus_touched, (std::vector<int64_t>{0, 2, 3}));
  // Each NPU's span: one feature per batch, batches 64 elements apart: (64 + 20) * 4 = 336.
  EXPECT_EQ(spans(fp), (std::vector<int64_t>{336, 0, 336, 336}));
  EXPECT_EQ(fp.npus[0].first_byte, 128);
  EXPECT_EQ(fp.npus[0].last_byte, 463);
  EXPECT_EQ(fp.reserved_bytes_per_npu, 464);
  EXPECT_EQ(fp.data_bytes, 2 * 3 * 20 * 4);
  EXPECT_EQ(fp.dummy_bytes, 0);
  EXPECT_EQ(fp.gap_bytes, 3 * 336 - 480);
  EXPECT_EQ(fp.unused_bytes, 4 * 464 - 3 * 336);
  EXPECT_EQ(fp.wasted_bytes, 4 * 464 - 480);
  EXPECT_TRUE(fp.fits);
}

TEST(Footprint, MatrixWidthTenUsesEveryNpuEqually) {
  const LocalTensor tensor(spec_device(), {2, 4, 1, 10}, ElementType::kF32, 0, LocalLayout{});
  const Footprint fp = footprint(tensor);
  EXPECT_EQ(spans(fp), (std::vector<int64_t>{168, 168, 168, 168}));
  EXPECT_EQ(fp.wasted_bytes, 4 * 168 - 320);
}

TEST(Footprint, DummiesOfFourNMode) {
  // s8 (6,5,4,5) in 4N: every channel has 2 batches of dummies (n = 6, 7): 2*20 bytes.
  const LocalTensor tensor(spec_device(), {6, 5, 4, 5}, ElementType::kS8, 0, LocalLayout{},
                           StorageMode::k4N);
  const Footprint fp = footprint(tensor);
  EXPECT_EQ(fp.dummy_bytes, 5 * 2 * 20);
  EXPECT_EQ(fp.data_bytes, 6 * 5 * 20);
  EXPECT_EQ(fp.npus[0].channels, 2);
  EXPECT_EQ(fp.npus[0].dummy_bytes, 2 * 2 * 20);
  // NPU 0 holds channels 0 and 4: last stored element (1, row 1, 3, 4) ends at byte 463.
  EXPECT_EQ(fp.npus[0].last_byte, (64 + 32 + 19) * 4 + 3);
  EXPECT_EQ(fp.wasted_bytes, fp.dummy_bytes + fp.gap_bytes + fp.unused_bytes);
}

TEST(Footprint, RunningPastTheEnd) {
  // C stride 32 elements; (4, 1, 4, 5) f32 from offset 640: ends at 640 + (3*32 + 20) * 4 = 1104.
  const LocalTensor tensor(spec_device(), {4, 1, 4, 5}, ElementType::kF32, 640, LocalLayout{});
  const Footprint fp = footprint(tensor);
  EXPECT_FALSE(fp.fits);
  EXPECT_EQ(fp.overrun_bytes, 80);
  EXPECT_EQ(tensor.overrun_bytes(), 80);
  test_support::expect_error(ErrorKind::kDoesNotFit,
                             "runs past the end of local memory by 80 bytes",
                             [&] { tensor.index_map(); });
}

TEST(Footprint, ExactlyFillingLocalMemoryFits) {
  const LocalTensor tensor(spec_device(), {1, 4, 16, 16}, ElementType::kF32, 0, LocalLayout{});
  EXPECT_TRUE(tensor.fits());
  EXPECT_EQ(tensor.bytes_reserved_per_npu(), 1024);
}

TEST(Footprint, SpansThatOverflowAreAnErrorNotAWrappedNumber) {
  // Found by fuzz_npu_arguments: a matrix of 8.0e18 columns placed (it does not fit) over 16 NPUs
  // whose spans summed past 2^63.
  MatrixArguments matrix;
  matrix.device = "bm1688";
  matrix.rows = "2";
  matrix.dtype = "bf16";
  matrix.address = "0x800";
  matrix.columns = "8044444444444444444";
  matrix.width = "6";
  test_support::expect_error(ErrorKind::kOverflow, "overflows 64 bits",
                             [&] { footprint(make_matrix_layout(matrix).tensor()); });
}

}  // namespace
}  // namespace tessera::npu
