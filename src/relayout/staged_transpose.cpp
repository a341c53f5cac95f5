#include "relayout/staged_transpose.h"

#include <algorithm>
#include <cstring>

#include "relayout/simd_kernels.h"

namespace tessera::relayout {
namespace {

constexpr int64_t kTile = 16;
constexpr int64_t kMaxBand = 128;  // source rows per band: 512-byte destination runs
// Source lines prefetched per group of tiles (32 KiB): 128 rows x 4 lines, 64 rows x 8 lines.
constexpr int64_t kGroupLines = 512;

void transpose_elements(const std::byte* source, int64_t row_begin, int64_t row_end,
                        int64_t column_begin, int64_t column_end, int64_t source_row_bytes,
                        std::byte* destination, int64_t destination_row_bytes) {
  for (int64_t j = column_begin; j < column_end; ++j) {
    for (int64_t i = row_begin; i < row_end; ++i) {
      std::memcpy(destination + j * destination_row_bytes + i * 4,
                  source + i * source_row_bytes + j * 4, 4);
    }
  }
}

}  // namespace

void staged_transpose_f32(const std::byte* source, int64_t rows, int64_t source_row_bytes,
                          std::byte* destination, int64_t columns, int64_t destination_row_bytes) {
  alignas(64) std::byte stage[kTile * kMaxBand * 4];
  const int64_t full_rows = rows / kTile * kTile;
  const int64_t full_columns = columns / kTile * kTile;
  for (int64_t ib = 0; ib < full_rows; ib += kMaxBand) {
    const int64_t band = std::min(kMaxBand, full_rows - ib);
    const int64_t band_bytes = band * 4;
    const int64_t lines_per_row = std::max<int64_t>(1, kGroupLines / band);
    const int64_t group_columns = lines_per_row * kTile;
    const std::byte* from = source + ib * source_row_bytes;
    for (int64_t g0 = 0; g0 < full_columns; g0 += group_columns) {
      const int64_t g1 = std::min(full_columns, g0 + group_columns);
      const int64_t next_group = (g0 + group_columns) * 4;
      int64_t line = 0;  // the next group's lines, row by row, 16 per tile
      for (int64_t j0 = g0; j0 < g1; j0 += kTile) {
        for (int64_t i0 = 0; i0 < band; i0 += kTile) {
          for (int u = 0; u < kTile; ++u, ++line) {
            prefetch_line(from, (line / lines_per_row) * source_row_bytes + next_group +
                                    (line % lines_per_row) * 64);
          }
          transpose_16x16_f32(from + i0 * source_row_bytes + j0 * 4, source_row_bytes,
                              8 * source_row_bytes, stage + i0 * 4, band_bytes, 8 * band_bytes,
                              false);
        }
        stream_runs(destination + j0 * destination_row_bytes + ib * 4, destination_row_bytes, stage,
                    band_bytes, static_cast<std::size_t>(band_bytes), kTile);
      }
    }
  }
  transpose_elements(source, 0, full_rows, full_columns, columns, source_row_bytes, destination,
                     destination_row_bytes);
  transpose_elements(source, full_rows, rows, 0, columns, source_row_bytes, destination,
                     destination_row_bytes);
}

}  // namespace tessera::relayout
