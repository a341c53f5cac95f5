// The transpose of a large matrix of 4-byte elements written with non-temporal stores, arranged
// so that each destination row receives long streaming runs (docs/design/relayout-engine.md;
// measurements: docs/notes/2026-11-23-staged-transposes.md).
#pragma once

#include <cstddef>
#include <cstdint>

#include "relayout/simd_kernels.h"

namespace tessera::relayout {

// 4-byte elements before the rows' first line boundary: 1..15 when every row (row_bytes apart)
// starts the same whole number of elements into a line (NumPy's arrays start 16 bytes into one),
// else 0 (line-aligned rows, or rows that start at different places).
int64_t elements_before_line(const std::byte* rows, int64_t row_bytes);

// destination[j][i] = source[i][j] for i < rows, j < columns (4-byte elements; row strides in
// bytes). Writes the destination with non-temporal stores: the caller issues store_fence().
//
// Why staged: a 16x16 register transpose writes one 64-byte line to each of 16 destination rows
// per tile. Written alone (no reads), such scattered non-temporal lines took longer than a copy
// of the same bytes, and runs of 256 bytes or more per row did not
// (docs/notes/2026-11-23-staged-transposes.md; AVX-512 host:
// docs/notes/2026-11-24-zen5-fewer-source-rows.md). So a band of source rows (128 on AVX2 hosts, 32
// on AVX-512 ones: portable_transpose.cpp has the measurements) is transposed tile by tile into a
// small L1 buffer (16 destination rows x band), and each destination row's band (512 or 128
// bytes) then goes out as one run. The bands, prefetches and stores are the variant's
// (kernel_variant.h): the planner measures which this host runs fastest. The source lines of the
// next group of tiles are prefetched row by row, the order the hardware prefetcher does not produce
// for many rows.
//
// Example: rows = 3, columns = 2, source rows {1 2} {3 4} {5 6}
//          -> destination rows {1 3 5} {2 4 6}.
// The tiles go through staged_transpose_tiles (portable_transpose.cpp), Highway code compiled
// per target, with every tile reading whole source lines and every band's runs filling whole
// destination lines where the rows allow it (rows a whole number of lines long that start inside
// one, as NumPy's do): the columns before the source's first line boundary and after the last
// whole tile go element by element, and so do fewer than 16 rows.
// `tuning`: the variant's bands, prefetches and stores (simd_kernels.h).
void staged_transpose_f32(const std::byte* source, int64_t rows, int64_t source_row_bytes,
                          std::byte* destination, int64_t columns, int64_t destination_row_bytes,
                          const TransposeTuning& tuning);

}  // namespace tessera::relayout
