#include "relayout/transpose_box.h"

#include <algorithm>
#include <cstdint>

#include "relayout/box_walk.h"
#include "relayout/simd_kernels.h"
#include "relayout/staged_transpose.h"

namespace tessera::relayout {
namespace {

// destination[j * destination_row + i] = source[i * source_row + j], i < rows, j < columns, in
// 16x16 tiles inside blocks of kBlockRows x kBlockColumns, columns outer and rows inner: each
// destination row then receives kBlockRows elements (256 bytes, whole lines) before the next,
// and the source lines of a column strip are read 16 rows at a time. Measured on f32[4096,4096]:
// fewer rows per block scatter the writes, more rows defeat the prefetcher on the reads.
template <int kBytes>
void transpose_tiles(const std::byte* source, int64_t rows, int64_t source_row,
                     std::byte* destination, int64_t columns, int64_t destination_row,
                     bool streaming) {
  using T = Word<kBytes>;
  const T* src = reinterpret_cast<const T*>(source);
  T* dst = reinterpret_cast<T*>(destination);
  const bool simd = kBytes == 4;  // Highway
  constexpr int64_t kTileEdge = 16;
  constexpr int64_t kBlockRows = 64;
  constexpr int64_t kBlockColumns = 512;
  for (int64_t ib = 0; ib < rows; ib += kBlockRows) {
    const int64_t ie = std::min(rows, ib + kBlockRows);
    for (int64_t jb = 0; jb < columns; jb += kBlockColumns) {
      const int64_t je = std::min(columns, jb + kBlockColumns);
      for (int64_t j0 = jb; j0 < je; j0 += kTileEdge) {
        const int64_t j1 = std::min(je, j0 + kTileEdge);
        for (int64_t i0 = ib; i0 < ie; i0 += kTileEdge) {
          const int64_t i1 = std::min(ie, i0 + kTileEdge);
          if (simd && i1 - i0 == kTileEdge && j1 - j0 == kTileEdge) {
            transpose_16x16_f32(reinterpret_cast<const std::byte*>(src + i0 * source_row + j0),
                                source_row * kBytes, 8 * source_row * kBytes,
                                reinterpret_cast<std::byte*>(dst + j0 * destination_row + i0),
                                destination_row * kBytes, 8 * destination_row * kBytes, streaming);
            continue;
          }
          for (int64_t j = j0; j < j1; ++j) {
            for (int64_t i = i0; i < i1; ++i)
              dst[j * destination_row + i] = src[i * source_row + j];
          }
        }
      }
    }
  }
}

// How a plain 4-byte transpose runs with the kernel's variant.
TransposeTuning transpose_tuning(const CopyKernel& k) {
  const KernelVariant& v = k.variant;
  TransposeTuning t;
  t.band_rows = v.band_rows;
  t.group_lines = v.group_lines;
  t.prefetch = v.prefetch;
  t.direct = v.store == StoreMode::kStream;
  t.two_bands = v.two_bands;
  t.shuffle = v.shuffle;
  t.avx2 = v.simd == Simd::kAvx2;
  return t;
}

// The part of a TileBlock every caller fills alike: the tiles' row strides and groups (axes 0
// and 1, groups in elements as for transpose_16x16_f32), the sweep and the kernel's variant; one
// band, no prefetch.
TileBlock tile_block(const StridedBox& box, int64_t source_group, int64_t destination_group,
                     const StridedAxis& sweep, const CopyKernel& k, const std::byte* source,
                     std::byte* destination) {
  TileBlock block{};
  block.source = source;
  block.destination = destination;
  block.source_stride = box.axes[0].source_stride * 4;
  block.source_group = source_group * 4;
  block.destination_stride = box.axes[1].destination_stride * 4;
  block.destination_group = destination_group * 4;
  block.sweep_count = sweep.count;
  block.sweep_source = sweep.source_stride * 4;
  block.sweep_destination = sweep.destination_stride * 4;
  block.band_count = 1;
  block.groups = 1;
  block.tile_lines = 1;
  block.streaming = k.streaming;
  block.prefetch = k.variant.prefetch;
  block.shuffle = k.variant.shuffle;
  block.avx2 = k.variant.simd == Simd::kAvx2;
  return block;
}

// Small-tile transposes in blocks: one step of axis 5 (the next tiles along a tile row) times
// a share of axis 6 (the piece's rows of tiles), the variant's band rows; T(8,128) <->
// transposed on AVX2: 128x128 floats, 16 whole 4 KiB tiles read and 16 whole tiles written per
// block. Inside a block the tiles go along the sweep (axis 4) and then down axis 6, so each pair of
// destination tiles is finished before the next; the next block's tiles are prefetched in address
// order meanwhile, a share per 16x16 tile (at the end of a share of rows, the next share's first).
// Blocks, not the whole sweep per tile pair: a block finishes its destination tiles while their
// lines are still in the caches. Fewer band rows on AVX-512 hosts: reading more source rows side
// by side than the hardware follows as streams slowed the reads, and too few rows left 64-byte
// destination runs. Without the prefetches the reads wait on memory. Measured in
// docs/notes/2026-11-23-staged-transposes.md (AVX2) and
// docs/notes/2026-11-25-zen5-row-gaps-and-read-streams.md (AVX-512, read streams).
// `source_group`, `destination_group`: as for transpose_16x16_f32, in elements.
void block_transpose(const StridedBox& box, int64_t source_group, int64_t destination_group,
                     const CopyKernel& k, const std::byte* source, std::byte* destination) {
  const bool streaming = k.streaming;
  const StridedAxis& a = box.axes[0];
  const StridedAxis& sweep = box.axes[4];
  const StridedAxis& column = box.axes[5];
  const StridedAxis& band = box.axes[6];
  const int64_t groups = 16 / a.count;
  const int64_t tile_lines = a.count * a.source_stride * 4 / 64;  // contiguous source tile
  // Rows of tiles per block (the variant's band rows); Fortran-order destinations (the realigned
  // blocks below) take at least 64 rows with ra64 (kernel_variant.h).
  const int64_t band_rows = k.variant.band_rows;
  const int64_t share = std::clamp<int64_t>(band_rows / 16, 1, band.count);
  const int64_t realigned_share = std::clamp<int64_t>(
      std::max<int64_t>(k.variant.realigned_rows, band_rows) / 16, 1, band.count);
  const int64_t lines_per_call = std::max<int64_t>(1, groups * tile_lines / sweep.count);
  // Destination rows that all start the same whole number of elements into a line (NumPy's
  // Fortran-order arrays, 16 bytes in): RealignedBand writes them in whole lines, each band of a
  // column of blocks joining the one before, so the blocks go down the rows (axis 6) before
  // along them (axis 5); the other order left each band's shared lines to L3 misses between.
  // Aligned destinations share no lines and keep the order along the rows, which measured faster
  // for them (docs/notes/2026-11-25-fortran-destinations-whole-lines.md).
  const bool lines_apart =  // every block's rows start the same distance into a line
      band.destination_stride == 16 && (box.axes[1].destination_stride * 4) % 64 == 0 &&
      (destination_group * 4) % 64 == 0 && (sweep.destination_stride * 4) % 64 == 0 &&
      (column.destination_stride * 4) % 64 == 0;
  const auto run = [&](int64_t s, int64_t d, int64_t first, int64_t t, int64_t next,
                       int64_t block_share, bool realigned) {
    const int64_t block_source = s + first * band.source_stride + t * column.source_stride;
    TileBlock block = tile_block(
        box, source_group, destination_group, sweep, k, source + block_source * 4,
        destination + (d + first * band.destination_stride + t * column.destination_stride) * 4);
    block.band_count = std::min(block_share, band.count - first);
    block.band_source = band.source_stride * 4;
    block.band_destination = band.destination_stride * 4;
    block.next = reinterpret_cast<uintptr_t>(source) + static_cast<uintptr_t>(next * 4);
    block.prefetch_lines = lines_per_call;
    block.prefetch_row = band.source_stride * 4;
    block.prefetch_group = source_group * 4;
    block.groups = groups;
    block.tile_lines = tile_lines;
    block.realigned = realigned;
    block.after_band = first > 0;
    block.before_band = first + block_share < band.count;
    transpose_16x16_block(block);
  };
  for_each_outer(box, 7, [&](int64_t s, int64_t d) {
    const auto lead = reinterpret_cast<uintptr_t>(destination + d * 4) % 64;
    const bool realigned = streaming && lines_apart && lead != 0 && lead % 4 == 0;
    if (realigned) {
      for (int64_t t = 0; t < column.count; ++t) {
        for (int64_t first = 0; first < band.count; first += realigned_share) {
          const int64_t here = s + first * band.source_stride + t * column.source_stride;
          const int64_t next = first + realigned_share < band.count
                                   ? here + realigned_share * band.source_stride
                                   : s + (t + 1) * column.source_stride;
          run(s, d, first, t, next, realigned_share, true);
        }
      }
      return;
    }
    for (int64_t first = 0; first < band.count; first += share) {
      const int64_t rows = s + first * band.source_stride;
      const int64_t next_share = first + share < band.count
                                     ? rows + share * band.source_stride
                                     : rows + column.count * column.source_stride;
      for (int64_t t = 0; t < column.count; ++t) {
        const int64_t here = rows + t * column.source_stride;
        run(s, d, first, t, t + 1 < column.count ? here + column.source_stride : next_share, share,
            false);
      }
    }
  });
}

// 16x16 tiles of 4-byte elements assembled from small tiles (T(8,128) has 8x8 pieces): rows
// i = x * A + a from axes 0 and 2, columns j = y * B + b from axes 1 and 3 (choose_copy_kernel
// arranged that both are contiguous runs of 16 on their side).
void grouped_transpose_box(const StridedBox& box, const CopyKernel& k, const std::byte* source,
                           std::byte* destination) {
  const bool streaming = k.streaming;
  const StridedAxis& a = box.axes[0];
  const StridedAxis& b = box.axes[1];
  const StridedAxis& x = box.axes[2];
  const StridedAxis& y = box.axes[3];
  if (a.count >= 8 && b.count >= 8) {  // two groups of 8 rows with one stride on each side
    const int64_t source_group = a.count == 16 ? 8 * a.source_stride : x.source_stride;
    const int64_t destination_group =
        b.count == 16 ? 8 * b.destination_stride : y.destination_stride;
    const auto tile = [&](int64_t s, int64_t d) {
      transpose_16x16_f32(source + s * 4, a.source_stride * 4, source_group * 4,
                          destination + d * 4, b.destination_stride * 4, destination_group * 4,
                          streaming);
    };
    // Small tiles are read a line per row per 16x16 tile, a pattern the hardware prefetcher
    // does not follow. When the sweep along axis 4 reads whole contiguous tiles (T(8,128): 4 KiB),
    // each step prefetches its share of the tiles the next step of axis 5 reads, in address
    // order; without it the transpose waited on its reads
    // (docs/notes/2026-11-21-register-transposes.md).
    const bool prefetch = box.axes.size() >= 6 && box.axes[4].source_stride == 16 &&
                          a.source_stride == box.axes[4].count * 16;
    // A plain matrix read across (NumPy's Fortran order into T(8,128)): the tiles' source rows
    // are one stride apart, axis 4 steps 16 elements along them and axis 5 steps 16 rows on,
    // which is the next 16 destination columns. Axis 5 goes innermost, in chunks of
    // the variant's band rows: each step of axis 4 then fills the chunk's part of the
    // destination's tile rows (T(8,128), 32 rows: 128-byte runs; 128 rows: two whole 4 KiB
    // tiles) instead of one 64-byte line per tile row 512 KiB apart. Prefetches:
    // - 128-row chunks (AVX2): each step asks for the next step's line in every row
    //   (docs/notes/2026-11-23-strided-numpy-arrays.md).
    // - 32-row chunks (AVX-512): the next group of steps, whole row pieces in address order
    //   (the variant's group lines: 2 KiB of each row, one row per step), as
    //   staged_transpose_tiles does: the hardware prefetcher follows few rows at once, and a line
    //   per row a few steps ahead, or 4 KiB of each row, gained less
    //   (docs/notes/2026-11-24-zen5-new-row-streams.md).
    const bool across = box.axes.size() >= 6 && a.count == 16 &&
                        source_group == 8 * a.source_stride && box.axes[4].source_stride == 16 &&
                        box.axes[5].source_stride == 16 * a.source_stride &&
                        box.axes[5].destination_stride == 16;
    if (across) {
      const StridedAxis& step = box.axes[4];
      const StridedAxis& along = box.axes[5];
      const int64_t chunk = std::max<int64_t>(1, k.variant.band_rows / 16);  // steps of axis 5
      const int64_t chunk_rows = chunk * 16;
      const int64_t group_steps =  // 0: a line per row one step ahead
          chunk_rows <= 32 ? k.variant.group_lines / chunk_rows : 0;
      const int64_t rows_per_step =
          group_steps > 0 ? std::max<int64_t>(1, chunk_rows / group_steps) : 0;
      // A source whose rows all start `shift` elements into a line (NumPy's Fortran-order
      // arrays, 16 bytes in) is read in whole lines: every step after the first takes its 16
      // elements `shift` earlier, and a last unshifted step writes the rows' last elements again.
      // Otherwise each line of a step's 32 rows, 32 KiB apart in one L1 set, is needed again by
      // the next step after the other rows have evicted it. Whole lines ran as fast as a
      // line-aligned source (docs/notes/2026-11-25-zen4-first-measurements.md).
      const bool whole_lines = streaming && (a.source_stride * 4) % 64 == 0 &&
                               (source_group * 4) % 64 == 0 && step.count > 1;
      for_each_outer(box, 6, [&](int64_t s, int64_t d) {
        const auto lead = reinterpret_cast<uintptr_t>(source + s * 4) % 64;
        const int shift = whole_lines && lead % 4 == 0 ? static_cast<int>(lead / 4) : 0;
        for (int64_t c = 0; c < along.count; c += chunk) {
          StridedAxis rows = along;
          rows.count = std::min(chunk, along.count - c);
          for (int64_t g = 0; g < step.count + (shift != 0 ? 1 : 0); ++g) {
            const bool again = g == step.count;  // the last step, unshifted
            const int rows_shift = g > 0 && !again ? shift : 0;
            const int64_t at = again ? g - 1 : g;
            const int64_t from = s + c * along.source_stride + at * step.source_stride - rows_shift;
            TileBlock block = tile_block(
                box, source_group, destination_group, rows, k, source + from * 4,
                destination +
                    (d + c * along.destination_stride + at * step.destination_stride) * 4);
            block.rows_shift = rows_shift;
            if (again) {
              transpose_16x16_block(block);  // no prefetches: the tile's lines are in cache
              continue;
            }
            int64_t next = from + step.source_stride;
            if (group_steps > 0) {
              // Step `in_group` of a group asks for the next group's lines (one per step) in its
              // rows in_group * rows_per_step on; after the rows' last group, the next chunk's
              // first group.
              const int64_t in_group = g % group_steps;
              const int64_t next_group = g - in_group + group_steps < step.count
                                             ? s + c * along.source_stride +
                                                   (g - in_group + group_steps) * step.source_stride
                                             : s + (c + chunk) * along.source_stride;
              next = next_group + in_group * rows_per_step * a.source_stride;
              block.tile_lines = group_steps;
            }
            block.next = reinterpret_cast<uintptr_t>(source) + static_cast<uintptr_t>(next * 4);
            block.prefetch_lines = 16;  // per 16x16 tile: chunk_rows lines per step
            block.prefetch_row = a.source_stride * 4;
            transpose_16x16_block(block);
          }
        }
      });
      return;
    }
    if (!prefetch) {
      for_each_outer(box, 4, tile);
      return;
    }
    const StridedAxis& sweep = box.axes[4];
    if (box.axes.size() >= 7 && box.axes[6].count > 1) {
      block_transpose(box, source_group, destination_group, k, source, destination);
      return;
    }
    const int64_t ahead = box.axes[5].source_stride * 4;
    const int64_t share = a.count * a.source_stride * 4 / sweep.count;  // bytes per group per step
    const int64_t groups = 16 / a.count;
    for_each_outer(box, 5, [&](int64_t s, int64_t d) {
      for (int64_t g = 0; g < sweep.count; ++g) {
        for (int64_t group = 0; group < groups; ++group) {
          const int64_t first = (s + group * source_group) * 4 + ahead + g * share;
          for (int64_t line = 0; line < share; line += 64) prefetch_line(source, first + line);
        }
        tile(s + g * sweep.source_stride, d + g * sweep.destination_stride);
      }
    });
    return;
  }
  for_each_outer(box, 4, [&](int64_t s, int64_t d) {
    const std::byte* from[16];
    std::byte* to[16];
    for (int64_t xi = 0; xi < x.count; ++xi) {
      for (int64_t ai = 0; ai < a.count; ++ai) {
        from[xi * a.count + ai] = source + (s + ai * a.source_stride + xi * x.source_stride) * 4;
      }
    }
    for (int64_t yi = 0; yi < y.count; ++yi) {
      for (int64_t bi = 0; bi < b.count; ++bi) {
        to[yi * b.count + bi] =
            destination + (d + bi * b.destination_stride + yi * y.destination_stride) * 4;
      }
    }
    transpose_16x16_f32(from, to, streaming);
  });
}

// Calls kernel(source_offset, destination_offset) for every group of the box's axes from 3 on
// (the kernels take axes 0-1 and repeat over axes[2] themselves, many groups per call, like
// runs); true when every call did its part. After a refusal no more calls are made and the
// caller's scalar loop does the whole box.
template <class F>
bool every_group(const StridedBox& box, F&& kernel) {
  bool done = true;
  for_each_outer(box, 3, [&](int64_t s, int64_t d) { done = done && kernel(s, d); });
  return done;
}

}  // namespace

// Plain f32 transposes of large outputs go through staged_transpose_f32: streamed straight, the
// 16x16 tiles of transpose_tiles write one line per destination row per tile, which ran slower
// than whole runs per row (docs/notes/2026-11-23-staged-transposes.md). Its direct variant (store
// `stream`) takes the same loop without the stage.
bool uses_staged_transpose(const CopyKernel& k) {
  return k.kind == KernelKind::kTranspose && !k.grouped && k.source_bits == 32 && k.streaming;
}

// Transposes of 1- or 2-byte elements whose destination takes 2 or 4 source rows at a time:
// XLA's (2,1) and (4,1) packing, done by the Highway interleave kernels.
bool uses_interleave(const StridedBox& box, const CopyKernel& k) {
  const int bytes = k.source_bits / 8;
  const StridedAxis& inner = box.axes[0];
  return k.kind == KernelKind::kTranspose && !k.grouped && (bytes == 1 || bytes == 2) &&
         (inner.count == 2 || inner.count == 4) && box.axes.size() >= 2 &&
         box.axes[1].destination_stride == inner.count &&
         box.axes[1].count * bytes >= kInterleaveRowBytes;
}

// The inverse: 2 or 4 source-contiguous units per column spread over as many destination rows
// (unpacking (2,1) and (4,1) tiles), done by the Highway deinterleave kernels: the scalar
// transpose loop ran far below a copy (docs/notes/2026-11-23-highway-interleaves.md).
bool uses_deinterleave(const StridedBox& box, const CopyKernel& k) {
  const int bytes = k.source_bits / 8;
  if (k.kind != KernelKind::kTranspose || k.grouped || (bytes != 1 && bytes != 2) ||
      box.axes.size() < 2) {
    return false;
  }
  const StridedAxis& inner = box.axes[0];
  const StridedAxis& pair = box.axes[1];
  return (pair.count == 2 || pair.count == 4) && pair.source_stride == 1 &&
         inner.source_stride == pair.count && inner.destination_stride == 1 &&
         inner.count * bytes >= kInterleaveRowBytes;
}

void transpose_box(const StridedBox& box, const CopyKernel& k, const std::byte* source,
                   std::byte* destination) {
  if (k.grouped) {
    grouped_transpose_box(box, k, source, destination);
    return;
  }
  const bool avx2 = k.variant.simd == Simd::kAvx2;
  const int bytes = k.source_bits / 8;
  const bool streaming = k.streaming;
  const StridedAxis& inner = box.axes[0];
  const StridedAxis& pair = box.axes[1];
  const StridedAxis next = box.axes.size() > 2 ? box.axes[2] : StridedAxis{1, 0, 0};
  if (uses_interleave(box, k) && every_group(box, [&](int64_t s, int64_t d) {
        return interleave_rows(source + s * bytes, inner.source_stride * bytes,
                               static_cast<int>(inner.count), bytes, pair.count,
                               destination + d * bytes, streaming, next.count,
                               next.source_stride * bytes, next.destination_stride * bytes, avx2);
      })) {
    return;
  }
  if (uses_deinterleave(box, k) && every_group(box, [&](int64_t s, int64_t d) {
        return deinterleave_rows(source + s * bytes, destination + d * bytes,
                                 pair.destination_stride * bytes, static_cast<int>(pair.count),
                                 bytes, inner.count, streaming, next.count,
                                 next.source_stride * bytes, next.destination_stride * bytes, avx2);
      })) {
    return;
  }
  for_each_outer(box, 2, [&](int64_t s, int64_t d) {
    const std::byte* from = source + s * bytes;
    std::byte* to = destination + d * bytes;
    switch (bytes) {
      case 1:
        transpose_tiles<1>(from, inner.count, inner.source_stride, to, pair.count,
                           pair.destination_stride, streaming);
        break;
      case 2:
        transpose_tiles<2>(from, inner.count, inner.source_stride, to, pair.count,
                           pair.destination_stride, streaming);
        break;
      case 4:
        if (uses_staged_transpose(k)) {
          staged_transpose_f32(from, inner.count, inner.source_stride * 4, to, pair.count,
                               pair.destination_stride * 4, transpose_tuning(k));
        } else {
          transpose_tiles<4>(from, inner.count, inner.source_stride, to, pair.count,
                             pair.destination_stride, streaming);
        }
        break;
      default:
        transpose_tiles<8>(from, inner.count, inner.source_stride, to, pair.count,
                           pair.destination_stride, streaming);
        break;
    }
  });
}

}  // namespace tessera::relayout
