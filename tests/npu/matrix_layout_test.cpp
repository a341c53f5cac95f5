// Spec "Matrix Layout": a 2-by-40 f32 matrix on X = 4 NPUs with W = 40, 20, 10, 8, 15, 6.
#include "tessera/npu/matrix_layout.h"

#include <gtest/gtest.h>

#include <random>

#include "npu/spec_device.h"
#include "tessera/npu/footprint.h"

namespace tessera::npu {
namespace {

using test_support::expect_error;
using test_support::spec_device;

MatrixLayout matrix(int64_t width, int64_t address = 0,
                    NStrideRule rule = NStrideRule::kChannelsPerNpu) {
  return MatrixLayout(spec_device(), 2, 40, ElementType::kF32, address, width, rule);
}

struct WidthCase {
  int64_t width;
  int64_t channels;
  int64_t channels_per_npu;
  int64_t row_blocks_per_npu;  // 4-byte blocks one matrix row takes in each NPU
  int64_t last_channel_columns;
};

TEST(MatrixLayout, SixWidthsOfTheSpec) {
  const WidthCase cases[] = {
      {40, 1, 1, 64, 40},  // "ceil(40 / 32) * 32 = 64 blocks", all columns in NPU 0
      {20, 2, 1, 32, 20},  // "evenly divided into NPU 0 and NPU 1 ... 32 blocks"
      {10, 4, 1, 32, 10},  // "evenly divided into all NPUs"
      {8, 5, 2, 64, 8},    // "C = 5 is greater than the number of NPUs ... more blocks"
      {15, 3, 1, 32, 10},  // "in NPU 2, the number is 40 - 15 * 2 = 10"
      {6, 7, 2, 64, 4},    // "More memory is used ... for W = 6 than W = 15"
  };
  for (const WidthCase& c : cases) {
    const MatrixLayout layout = matrix(c.width);
    EXPECT_EQ(layout.channels(), c.channels) << c.width;
    EXPECT_EQ(layout.tensor().channels_per_npu(), c.channels_per_npu) << c.width;
    EXPECT_EQ(layout.row_bytes_per_npu(), c.row_blocks_per_npu * 4) << c.width;
    EXPECT_EQ(layout.last_channel_columns(), c.last_channel_columns) << c.width;
    for (int64_t i = 0; i < 2; ++i) {
      for (int64_t j = 0; j < 40; ++j) {
        const ElementPlace place = layout.place(i, j);
        EXPECT_EQ(place.npu, (j / c.width) % 4);
        EXPECT_EQ(place.byte_offset,
                  (i * c.row_blocks_per_npu + (j / c.width) / 4 * 32 + j % c.width) * 4);
      }
    }
  }
  EXPECT_GT(matrix(6).local_memory_per_npu(), matrix(15).local_memory_per_npu());
}

// The spec's last-channel formula M - W*floor(M/W) is 0 when W divides M; the right one is
// M - W*(ceil(M/W) - 1) (docs/design/npu-local-memory.md, "The matrix layout").
TEST(MatrixLayout, LastChannelWhenWDividesM) {
  EXPECT_EQ(matrix(20).last_channel_columns(), 20);
  EXPECT_EQ(matrix(1).last_channel_columns(), 1);
  EXPECT_EQ(matrix(39).last_channel_columns(), 1);
}

TEST(MatrixLayout, ElementMapsToTensorIndex) {
  EXPECT_EQ(matrix(15).tensor_index(1, 31), (std::array<int64_t, 4>{1, 2, 0, 1}));
  EXPECT_EQ(matrix(15).place(1, 31), (ElementPlace{2, 132, 2048 + 132}));
}

// "By selecting an appropriate W can the storage achieve the best": W = 10 uses 168 bytes per NPU
// (32 + 10 blocks); W in 11..32 needs more, W < 10 makes C > X.
TEST(MatrixLayout, BestWidth) {
  EXPECT_EQ(best_matrix_width(spec_device(), 2, 40, ElementType::kF32, 0), 10);
  EXPECT_EQ(matrix(10).local_memory_per_npu(), 168);
  EXPECT_EQ(matrix(20).local_memory_per_npu(), 208);
  EXPECT_EQ(matrix(40).local_memory_per_npu(), 416);
  // One row of 64 f32 on 4 NPUs: W = 16 (C = 4) ends at byte 63 of every NPU; larger W end
  // later, smaller W make C > X and need a second channel row.
  EXPECT_EQ(best_matrix_width(spec_device(), 1, 64, ElementType::kF32, 0), 16);
  // A tie between C <= X and C > X goes to C <= X; a tie among C <= X to the larger W:
  // a 1 x 4 s8 matrix on 4 NPUs: W = 1 (C = 4) and W = 2..4 end at byte W - 1; W = 1 wins.
  EXPECT_EQ(best_matrix_width(spec_device(), 1, 4, ElementType::kS8, 0), 1);
  // With one NPU every W ends at the same aligned size for one row: ties go to the larger W.
  const Device one = make_device(1, 1024, 128);
  EXPECT_EQ(best_matrix_width(one, 1, 4, ElementType::kF32, 0), 4);
}

// The search visits only the smallest W of every channel count; trying every W agrees.
TEST(MatrixLayout, BestWidthAgreesWithTryingEveryWidth) {
  std::mt19937_64 random(3);
  const auto uniform = [&](int64_t low, int64_t high) {
    return std::uniform_int_distribution<int64_t>(low, high)(random);
  };
  for (int trial = 0; trial < 300; ++trial) {
    const Device device = make_device(uniform(1, 8), 1 << 20, int64_t{1} << uniform(0, 7));
    const int64_t rows = uniform(1, 5);
    const int64_t columns = uniform(1, 300);
    const ElementType type = trial % 2 ? ElementType::kF32 : ElementType::kS8;
    const int64_t address = uniform(0, device.npus - 1) * device.local_memory_bytes;
    const NStrideRule rule =
        trial % 3 ? NStrideRule::kChannelsPerNpu : NStrideRule::kIgnoringStartNpu;
    int64_t expected = 0, best_bytes = 0;
    bool best_within = false;
    for (int64_t w = 1; w <= columns; ++w) {
      const MatrixLayout layout(device, rows, columns, type, address, w, rule);
      const int64_t bytes = footprint(layout.tensor()).busiest_npu_bytes;  // NPU by NPU
      const bool within = layout.channels() <= device.npus;
      if (expected == 0 || bytes < best_bytes || (bytes == best_bytes && within >= best_within)) {
        expected = w;
        best_bytes = bytes;
        best_within = within;
      }
    }
    EXPECT_EQ(best_matrix_width(device, rows, columns, type, address, rule), expected)
        << "X=" << device.npus << " align=" << device.alignment_bytes << " " << rows << "x"
        << columns;
  }
}

// The largest matrix the search takes (M = 2^32) on the most NPUs tessera models (2^16): the
// search visits O(sqrt(M)) widths, each costing O(1) rather than O(X) (that took 3.5 minutes and
// timed fuzz_npu_arguments out). Every power-of-two W from 16 (align = 16 f32) to M/X = 65536
// needs (M/X) * 4 bytes per NPU; W = 65536 is the only one of them with a channel per NPU, so
// it wins the tie. Any larger W needs W * 4 bytes.
TEST(MatrixLayout, BestWidthOfTheLargestSearchedMatrixOnTheMostNpus) {
  const Device device = make_device(kMaxNpus, int64_t{1} << 20, 64);
  EXPECT_EQ(best_matrix_width(device, 1, int64_t{1} << 32, ElementType::kF32, 0), 65536);
  EXPECT_EQ(
      MatrixLayout(device, 1, int64_t{1} << 32, ElementType::kF32, 0, 65536).local_memory_per_npu(),
      65536 * 4);
}

// Local memory per NPU is the busiest NPU's own span, not the band from the start offset: a 1 x 64
// f32 matrix with W = 16 at NPU 3 puts channel 0 on NPU 3 (row 0) and channels 1..3 on NPUs 0..2
// (row 1): every NPU spans 64 bytes, though the band from offset 0 is (32 + 16) * 4 = 192.
TEST(MatrixLayout, LocalMemoryPerNpuIsTheBusiestSpan) {
  const MatrixLayout layout(spec_device(), 1, 64, ElementType::kF32, 3072, 16);
  EXPECT_EQ(layout.local_memory_per_npu(), 64);
  EXPECT_EQ(layout.tensor().bytes_reserved_per_npu(), 192);
  EXPECT_EQ(best_matrix_width(spec_device(), 1, 64, ElementType::kF32, 3072), 16);
}

TEST(MatrixLayout, GdmaRowStrideOption) {
  // Start at NPU 3 with C = 2: the spec reserves ceil((3+2)/4) = 2 rows, GDMA ceil(2/4) = 1.
  const MatrixLayout spec = matrix(20, 3072);
  const MatrixLayout gdma = matrix(20, 3072, NStrideRule::kIgnoringStartNpu);
  EXPECT_EQ(spec.row_bytes_per_npu(), 256);
  EXPECT_EQ(gdma.row_bytes_per_npu(), 128);
  EXPECT_EQ(spec.place(1, 20), (ElementPlace{0, 256 + 128, 256 + 128}));
  EXPECT_EQ(gdma.place(1, 20), (ElementPlace{0, 128 + 128, 128 + 128}));
  EXPECT_EQ(gdma.place(1, 0), (ElementPlace{3, 128, 3072 + 128}));
  // From NPU 0 the two rules agree.
  EXPECT_EQ(matrix(8).row_bytes_per_npu(),
            matrix(8, 0, NStrideRule::kIgnoringStartNpu).row_bytes_per_npu());
}

// With Q > 0 the GDMA rule interleaves channel rows (not a digit form); placing elements needs
// no inverse table, even past the 2^22 elements up to which tessera builds one.
TEST(MatrixLayout, LargeGdmaMatrixPlacesWithoutAnInverseTable) {
  const Device bm1684 = device_presets()[0];
  const MatrixLayout layout(bm1684, 70, 64000, ElementType::kS8, bm1684.local_memory_bytes, 1000,
                            NStrideRule::kIgnoringStartNpu);
  EXPECT_EQ(layout.channels(), 64);
  EXPECT_EQ(layout.tensor().channels_per_npu(), 2);
  EXPECT_EQ(layout.row_bytes_per_npu(), 1024);  // ceil(64 / 64) rows of align(1000)
  EXPECT_EQ(layout.place(69, 63999),
            (ElementPlace{0, 69 * 1024 + 1024 + 999, 69 * 1024 + 1024 + 999}));
  EXPECT_EQ(layout.place(1, 0).address, bm1684.local_memory_bytes + 1024);
  test_support::expect_error(ErrorKind::kUnsupported, "inverse table",
                             [&] { layout.tensor().index_map(); });
}

TEST(MatrixLayout, Errors) {
  expect_error(ErrorKind::kInvalid, "W is 0", [] { matrix(0); });
  expect_error(ErrorKind::kInvalid, "W is 41", [] { matrix(41); });
  expect_error(ErrorKind::kInvalid, "rows is 0",
               [] { MatrixLayout(spec_device(), 0, 40, ElementType::kF32, 0, 4); });
  expect_error(ErrorKind::kInvalid, "columns is -3",
               [] { best_matrix_width(spec_device(), 2, -3, ElementType::kF32, 0); });
  expect_error(ErrorKind::kOutOfRange, "outside the 2 x 40 matrix", [] { matrix(10).place(2, 0); });
  expect_error(ErrorKind::kOutOfRange, "(0,40)", [] { matrix(10).place(0, 40); });
  expect_error(ErrorKind::kInvalid, "multiple of 128", [] { matrix(10, 64); });
  expect_error(ErrorKind::kDoesNotFit, "by 672 bytes",
               [] { MatrixLayout(spec_device(), 4, 40, ElementType::kF32, 768, 40).place(0, 0); });
}

}  // namespace
}  // namespace tessera::npu
