// The staged transpose of large f32 outputs (src/relayout/staged_transpose.cpp): every edge shape
// against the index formula destination[j][i] = source[i][j], with padded rows and unaligned
// destinations; then plans that reach it (outputs >= 4 MiB) against IndexMap::linear_index.
#include "relayout/staged_transpose.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "relayout/highway_targets.h"
#include "relayout/simd_kernels.h"
#include "tessera/relayout/layout_operand.h"
#include "tessera/relayout/relayout_plan.h"

namespace tessera::relayout {
namespace {

constexpr uint32_t kCanaryWord = 0xEEEEEEEE;

// Sizes around the 16x16 tiles, the 128-row bands and the 64- to 512-column prefetch groups.
const int64_t kSizes[] = {0, 1, 7, 15, 16, 17, 33, 127, 128, 129, 144, 257, 530};

// One shape (rows x columns, row paddings and a destination offset in elements) against the
// index formula, with canaries around the destination.
void expect_transposed(int64_t rows, int64_t columns, int64_t source_pad, int64_t destination_pad,
                       int64_t offset, const TransposeTuning& tuning) {
  const int64_t source_row = columns + source_pad;
  const int64_t destination_row = rows + destination_pad;
  std::vector<uint32_t> source(static_cast<std::size_t>(rows * source_row));
  for (std::size_t k = 0; k < source.size(); ++k) source[k] = static_cast<uint32_t>(k);
  std::vector<uint32_t> destination(
      static_cast<std::size_t>(columns * destination_row + offset + 16), kCanaryWord);
  staged_transpose_f32(reinterpret_cast<const std::byte*>(source.data()), rows, source_row * 4,
                       reinterpret_cast<std::byte*>(destination.data() + offset), columns,
                       destination_row * 4, tuning);
  store_fence();
  for (int64_t k = 0; k < static_cast<int64_t>(destination.size()); ++k) {
    const int64_t j = (k - offset) / std::max<int64_t>(destination_row, 1);
    const int64_t i = (k - offset) % std::max<int64_t>(destination_row, 1);
    const bool inside = k >= offset && j < columns && i < rows;
    const uint32_t want =
        inside ? source[static_cast<std::size_t>(i * source_row + j)] : kCanaryWord;
    ASSERT_EQ(destination[static_cast<std::size_t>(k)], want)
        << rows << "x" << columns << " pads " << source_pad << "," << destination_pad << " offset "
        << offset << " at " << k << ", rows " << tuning.band_rows << " direct " << tuning.direct
        << " two bands " << tuning.two_bands;
  }
}

TEST(StagedTranspose, EveryEdgeShapeMatchesTheIndexFormulaOnEveryTarget) {
  for_each_target([] {
    TransposeTuning tuning;
    tuning.band_rows = transpose_band_rows(false);
    tuning.group_lines = transpose_prefetch_group_lines(false);
    for (const int64_t rows : kSizes) {
      for (const int64_t columns : kSizes) {
        // (source row padding, destination row padding, destination offset), in elements.
        for (const auto [source_pad, destination_pad, offset] :
             {std::array<int64_t, 3>{0, 0, 0}, {3, 0, 0}, {0, 5, 1}, {16, 16, 0}}) {
          expect_transposed(rows, columns, source_pad, destination_pad, offset, tuning);
        }
      }
    }
  });
}

// The bands, prefetches and stores the planner chooses among (kernel_variant.h) write the same.
TEST(StagedTranspose, EveryTuningMatchesTheIndexFormula) {
  std::vector<TransposeTuning> tunings;
  for (const int64_t rows : {16, 32, 64, 128}) {
    for (const bool direct : {false, true}) {
      for (const bool two_bands : {false, true}) {
        TransposeTuning t;
        t.band_rows = rows;
        t.direct = direct;
        t.two_bands = two_bands;
        t.group_lines = rows == 64 ? 4096 : 512;
        t.prefetch = rows == 16 ? Prefetch::kNone : rows == 32 ? Prefetch::kL2 : Prefetch::kL1;
        t.avx2 = direct;
        tunings.push_back(t);
      }
    }
  }
  for (const TransposeTuning& t : tunings) {
    for (const int64_t rows : {17, 128, 129, 257, 530}) {
      for (const int64_t columns : {15, 33, 144, 530}) {
        expect_transposed(rows, columns, 0, 0, 0, t);
        expect_transposed(rows, columns, 3, 5, 1, t);
      }
    }
  }
}

// Outputs of 4 MiB and more take the staged path (plain, batched, odd and padded views) or, for
// small tiles, the 128x128 blocks.
TEST(StagedTranspose, PlansThatStreamMatchTheReference) {
  const char* const pairs[][2] = {
      {"f32[1024,1024]{1,0}", "f32[1024,1024]{0,1}"},
      {"f32[1031,1047]{1,0}", "f32[1031,1047]{0,1}"},
      {"f32[3,700,520]{2,1,0}", "f32[3,700,520]{1,2,0}"},
      {"f32[1040,1030]{1,0:T(8,128)}", "f32[1040,1030]{0,1}"},
      {"s32[1030,1050]{0,1}", "s32[1030,1050]{1,0}"},
      // Small tiles grouped into 16x16, in blocks of 128x128 (copy_kernels.cpp).
      {"f32[1024,1024]{1,0:T(8,128)}", "f32[1024,1024]{0,1:T(8,128)}"},
      {"f32[1032,1040]{1,0:T(8,128)}", "f32[1032,1040]{0,1:T(8,128)}"},
      {"f32[2,1024,640]{2,1,0:T(8,128)}", "f32[2,1024,640]{1,2,0:T(8,128)}"},
      // A plain matrix read across into tiles (NumPy's Fortran order into T(8,128)): the
      // destination filled two tiles at a time (copy_kernels.cpp).
      {"f32[1024,1024]{0,1}", "f32[1024,1024]{1,0:T(8,128)}"},
      {"f32[1040,1032]{0,1}", "f32[1040,1032]{1,0:T(8,128)}"},
      {"f32[2,1024,640]{1,2,0}", "f32[2,1024,640]{2,1,0:T(8,128)}"},
  };
  std::mt19937 rng(3);
  for (const auto& pair : pairs) {
    const LayoutOperand from = parse_layout_operand(pair[0]);
    const LayoutOperand to = parse_layout_operand(pair[1]);
    const IndexMap& a = *from.map;
    const IndexMap& b = *to.map;
    std::vector<uint32_t> source(static_cast<std::size_t>(a.size_elements()));
    for (auto& v : source) v = static_cast<uint32_t>(rng());
    std::vector<uint32_t> destination(static_cast<std::size_t>(b.size_elements()), kCanaryWord);
    const RelayoutPlan p = plan(a, b, {.threads = 2});
    EXPECT_NE(p.describe().find("streaming"), std::string::npos) << p.describe();
    p.execute(std::as_bytes(std::span(source)), std::as_writable_bytes(std::span(destination)));
    std::vector<int64_t> index(a.dims().size(), 0);
    for (int64_t n = 0; n < a.logical_elements(); ++n) {
      ASSERT_EQ(destination[static_cast<std::size_t>(b.linear_index(index))],
                source[static_cast<std::size_t>(a.linear_index(index))])
          << pair[0] << " -> " << pair[1] << " element " << n;
      for (std::size_t k = index.size(); k-- > 0;) {
        if (++index[k] < a.dims()[k]) break;
        index[k] = 0;
      }
    }
  }
}

}  // namespace
}  // namespace tessera::relayout
