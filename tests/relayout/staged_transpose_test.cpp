// The staged transpose of large f32 outputs (src/relayout/staged_transpose.cpp): every edge shape
// against the index formula destination[j][i] = source[i][j], with padded rows and unaligned
// destinations; then plans that reach it (outputs >= 4 MiB) against IndexMap::linear_index.
#include "relayout/staged_transpose.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
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

// Elements from the start of `v` to its first line boundary (vectors are 4-byte aligned).
int64_t to_line(const std::vector<uint32_t>& v) {
  return (64 - static_cast<int64_t>(reinterpret_cast<uintptr_t>(v.data()) % 64)) % 64 / 4;
}

// One shape (rows x columns, row paddings and where the destination and the source start, in
// elements past a line boundary) against the index formula, with canaries around the destination.
void expect_transposed(int64_t rows, int64_t columns, int64_t source_pad, int64_t destination_pad,
                       int64_t offset, const TransposeTuning& tuning, int64_t source_offset = 0) {
  const int64_t source_row = columns + source_pad;
  const int64_t destination_row = rows + destination_pad;
  std::vector<uint32_t> source_space(static_cast<std::size_t>(rows * source_row + 32));
  for (std::size_t k = 0; k < source_space.size(); ++k) source_space[k] = static_cast<uint32_t>(k);
  const uint32_t* source = source_space.data() + to_line(source_space) + source_offset;
  std::vector<uint32_t> destination(
      static_cast<std::size_t>(columns * destination_row + offset + 32), kCanaryWord);
  const int64_t start = to_line(destination) + offset;
  staged_transpose_f32(reinterpret_cast<const std::byte*>(source), rows, source_row * 4,
                       reinterpret_cast<std::byte*>(destination.data() + start), columns,
                       destination_row * 4, tuning);
  store_fence();
  for (int64_t k = 0; k < static_cast<int64_t>(destination.size()); ++k) {
    const int64_t j = (k - start) / std::max<int64_t>(destination_row, 1);
    const int64_t i = (k - start) % std::max<int64_t>(destination_row, 1);
    const bool inside = k >= start && j < columns && i < rows;
    const uint32_t want =
        inside ? source[static_cast<std::size_t>(i * source_row + j)] : kCanaryWord;
    ASSERT_EQ(destination[static_cast<std::size_t>(k)], want)
        << rows << "x" << columns << " pads " << source_pad << "," << destination_pad << " offsets "
        << source_offset << "," << offset << " at " << k - start << ", rows " << tuning.band_rows
        << " direct " << tuning.direct << " two bands " << tuning.two_bands;
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

// Rows a whole number of lines long that start 1..15 elements into a line (NumPy's arrays start
// 16 bytes in): the tiles start where the source's and the destination's lines do, the rows and
// columns around them come apart (staged_transpose.cpp). Every start in a line on either side,
// each tuning's bands, rows and columns around the tiles and the bands.
TEST(StagedTranspose, RowsStartingInsideALineMatchTheIndexFormula) {
  for_each_target([] {
    for (const int64_t band_rows : {16, 32, 128}) {
      TransposeTuning tuning;
      tuning.band_rows = band_rows;
      tuning.direct = band_rows == 32;
      tuning.two_bands = band_rows == 16;
      for (const int64_t rows : {15, 16, 17, 31, 33, 129, 160, 257}) {
        const int64_t destination_pad = (16 - rows % 16) % 16;  // whole lines per row
        for (const int64_t columns : {15, 16, 47, 144}) {
          const int64_t source_pad = (16 - columns % 16) % 16;
          for (int64_t offset = 0; offset < 16; ++offset) {
            expect_transposed(rows, columns, source_pad, destination_pad, offset, tuning);
            expect_transposed(rows, columns, source_pad, destination_pad, 0, tuning, offset);
            expect_transposed(rows, columns, source_pad, destination_pad, offset, tuning,
                              (offset * 7) % 16);
          }
          // Rows of different starts: neither side moves.
          expect_transposed(rows, columns, source_pad + 1, destination_pad + 3, 4, tuning, 4);
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

// The pieces of a plan move their shared ends to where the destination's lines start
// (relayout_plan.cpp): buffers starting anywhere in a line, rows whose lines all start alike
// (1040 and 1024 elements) and rows that do not (1030), against the index formula.
TEST(StagedTranspose, PlansOnBuffersStartingInsideALineMatchTheIndexFormula) {
  for (const auto& [rows, columns] :
       {std::array<int64_t, 2>{1040, 1024}, {1024, 1040}, {1030, 1056}}) {
    const LayoutOperand from =
        parse_layout_operand(fmt::format("f32[{},{}]{{1,0}}", rows, columns));
    const LayoutOperand to = parse_layout_operand(fmt::format("f32[{},{}]{{0,1}}", rows, columns));
    const RelayoutPlan p = plan(*from.map, *to.map, {.threads = 2});
    ASSERT_GT(p.piece_count(), 2) << p.describe();
    std::vector<uint32_t> source_space(static_cast<std::size_t>(rows * columns + 32));
    std::mt19937 rng(5);
    for (auto& v : source_space) v = static_cast<uint32_t>(rng());
    std::vector<uint32_t> destination_space(source_space.size() + 16);
    for (const auto [source_offset, offset] :
         {std::array<int64_t, 2>{0, 0}, {4, 4}, {0, 12}, {15, 1}, {3, 0}}) {
      const uint32_t* source = source_space.data() + to_line(source_space) + source_offset;
      // A line of canaries before the destination, at least 16 elements after it.
      uint32_t* destination = destination_space.data() + to_line(destination_space) + 16 + offset;
      std::fill(destination_space.begin(), destination_space.end(), kCanaryWord);
      p.execute(
          std::as_bytes(std::span(source, static_cast<std::size_t>(rows * columns))),
          std::as_writable_bytes(std::span(destination, static_cast<std::size_t>(rows * columns))));
      for (int64_t j = 0; j < columns; ++j) {
        for (int64_t i = 0; i < rows; ++i) {
          ASSERT_EQ(destination[j * rows + i], source[i * columns + j])
              << rows << "x" << columns << " offsets " << source_offset << "," << offset << " at "
              << j << "," << i;
        }
      }
      ASSERT_EQ(destination[-1], kCanaryWord);
      ASSERT_EQ(destination[rows * columns], kCanaryWord);
    }
  }
}

}  // namespace
}  // namespace tessera::relayout
