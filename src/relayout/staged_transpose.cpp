#include "relayout/staged_transpose.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
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

int64_t elements_before_line(const std::byte* rows, int64_t row_bytes) {
  const auto into = static_cast<int64_t>(reinterpret_cast<uintptr_t>(rows) % 64);
  if (into == 0 || into % 4 != 0 || row_bytes % 64 != 0) return 0;
  return (64 - into) / 4;
}

void staged_transpose_f32(const std::byte* source, int64_t rows, int64_t source_row_bytes,
                          std::byte* destination, int64_t columns, int64_t destination_row_bytes,
                          const TransposeTuning& tuning) {
  // The tiles start `skip` columns in, where the source rows' lines do, and the bands where the
  // destination rows' lines do, so that their runs start and end on a line boundary. Rows and runs
  // 16 bytes into a line read two lines per tile row and wrote two partial lines per run, and ran
  // the transposes up to half as fast (docs/notes/2026-11-28-numpy-aligned-transposes.md). The
  // columns around the tiles go element by element.
  const int64_t skip = columns >= kTile ? elements_before_line(source, source_row_bytes) : 0;
  const int64_t tile_columns = (columns - skip) / kTile * kTile;
  if (rows >= kTile) {
    staged_transpose_tiles(source + skip * 4, rows, source_row_bytes,
                           destination + skip * destination_row_bytes, tile_columns,
                           destination_row_bytes,
                           elements_before_line(destination, destination_row_bytes), tuning);
  } else {
    transpose_elements(source, 0, rows, skip, skip + tile_columns, source_row_bytes, destination,
                       destination_row_bytes);
  }
  transpose_elements(source, 0, rows, 0, skip, source_row_bytes, destination,
                     destination_row_bytes);
  transpose_elements(source, 0, rows, skip + tile_columns, columns, source_row_bytes, destination,
                     destination_row_bytes);
}

}  // namespace tessera::relayout
