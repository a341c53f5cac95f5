#include "relayout/staged_transpose.h"

#include <algorithm>
#include <cstring>

#include "relayout/simd_kernels.h"

namespace tessera::relayout {
namespace {

constexpr int64_t kTile = 16;

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
                          std::byte* destination, int64_t columns, int64_t destination_row_bytes,
                          const TransposeTuning& tuning) {
  const int64_t full_rows = rows / kTile * kTile;
  const int64_t full_columns = columns / kTile * kTile;
  staged_transpose_tiles(source, full_rows, source_row_bytes, destination, full_columns,
                         destination_row_bytes, tuning);
  transpose_elements(source, 0, full_rows, full_columns, columns, source_row_bytes, destination,
                     destination_row_bytes);
  transpose_elements(source, full_rows, rows, 0, columns, source_row_bytes, destination,
                     destination_row_bytes);
}

}  // namespace tessera::relayout
