// The 16x16 transpose of 4-byte elements written once with Highway and dispatched at run time:
// 4x4 transposes inside each 128-bit block, with vectors as wide as the target has (SSE4/NEON 4
// floats, AVX2 8, AVX-512 16: then each destination line is one 64-byte store).
//
// This file is included once per target by hwy/foreach_target.h.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "relayout/portable_transpose.cpp"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include <cstring>
#include <type_traits>

#include "relayout/simd_kernels.h"
#include "relayout/store_lanes-inl.h"
#include "relayout/tile_rows.h"

HWY_BEFORE_NAMESPACE();
namespace tessera::relayout::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR  // one lane: Transpose16x16 copies element by element
// Vectors of 4 (SSE4, NEON, SVE: 128-bit), 8 (AVX2) or 16 (AVX-512) floats: as many 128-bit
// blocks as the target has, up to a whole 64-byte line. Scalable vectors (SVE) get 4 lanes: their
// length is not known when this is compiled.
#if HWY_HAVE_SCALABLE
constexpr size_t kLanes = 4;
#else
constexpr size_t kLanes = HWY_MIN(16, HWY_MAX_BYTES / sizeof(float));
#endif
using Tile = hn::FixedTag<float, kLanes>;
#if HWY_HAVE_FLOAT64
using Pairs = hn::Repartition<double, Tile>;  // two floats as one lane (unpcklpd on x86)
#else
using Pairs = hn::Repartition<uint64_t, Tile>;
#endif

// Block b (128 bits) of the result = columns column..column+3 of row first + 4 * b. On AVX2 a
// 16-byte load plus vinsertf128 from memory per vector, so the 4x4 transposes below need no
// cross-block permutes (the same scheme as the old hand-written AVX2 kernel).
template <class D, class SourceRows>
HWY_INLINE hn::Vec<D> LoadRowBlocks(D d, const SourceRows& from, int first, int column) {
  if constexpr (hn::MaxLanes(D()) == 4) {
    return hn::LoadU(d, reinterpret_cast<const float*>(from(first)) + column);
  } else {
    const hn::Half<D> dh;
    constexpr int kHalfRows = static_cast<int>(hn::MaxLanes(hn::Half<D>()));  // 4 rows per block
    return hn::Combine(d, LoadRowBlocks(dh, from, first + kHalfRows, column),
                       LoadRowBlocks(dh, from, first, column));
  }
}

// Rows first + k + 4b (k < 4, every block b), columns column..column+3: block b of o_m holds
// column column + m of rows first + 4b .. first + 4b + 3, i.e. destination row column + m,
// elements first + 4b .. first + 4b + 3. Two interleaves per 128-bit block, no permutes.
template <class SourceRows>
HWY_INLINE void Transpose4x4Blocks(const SourceRows& from, int first, int column, hn::Vec<Tile>& o0,
                                   hn::Vec<Tile>& o1, hn::Vec<Tile>& o2, hn::Vec<Tile>& o3) {
  const Tile d;
  const Pairs d2;
  const auto r0 = LoadRowBlocks(d, from, first, column);
  const auto r1 = LoadRowBlocks(d, from, first + 1, column);
  const auto r2 = LoadRowBlocks(d, from, first + 2, column);
  const auto r3 = LoadRowBlocks(d, from, first + 3, column);
  const auto t0 = hn::BitCast(d2, hn::InterleaveLower(d, r0, r1));  // a0 b0 a1 b1
  const auto t1 = hn::BitCast(d2, hn::InterleaveUpper(d, r0, r1));  // a2 b2 a3 b3
  const auto t2 = hn::BitCast(d2, hn::InterleaveLower(d, r2, r3));  // c0 d0 c1 d1
  const auto t3 = hn::BitCast(d2, hn::InterleaveUpper(d, r2, r3));  // c2 d2 c3 d3
  o0 = hn::BitCast(d, hn::InterleaveLower(d2, t0, t2));             // a0 b0 c0 d0
  o1 = hn::BitCast(d, hn::InterleaveUpper(d2, t0, t2));             // a1 b1 c1 d1
  o2 = hn::BitCast(d, hn::InterleaveLower(d2, t1, t3));
  o3 = hn::BitCast(d, hn::InterleaveUpper(d2, t1, t3));
}

template <class DestinationRows>
HWY_INLINE void StoreRowPart(const DestinationRows& to, int row, int first, hn::Vec<Tile> v,
                             bool stream) {
  StoreLanes(Tile(), v, reinterpret_cast<float*>(to(row)) + first, stream);
}

// 8 and 16 lanes: destination rows column..column+7 get source rows 0..15 of those columns. Each
// source row's 32 bytes are read together: the rows of a tile are often 2^k bytes apart, so all 16
// sit in one 8-way L1 set and a row read in four 16-byte pieces at different times misses four
// times. Each destination row's 64 bytes are stored back to back (non-temporal parts of a line
// stored apart evict partial lines: docs/notes/2026-11-21-register-transposes.md).
template <class SourceRows, class DestinationRows>
HWY_INLINE void Transpose8Columns(const SourceRows& from, const DestinationRows& to, int column,
                                  bool stream) {
  using V = hn::Vec<Tile>;
  V a0, a1, a2, a3, c0, c1, c2, c3;
  Transpose4x4Blocks(from, 0, column, a0, a1, a2, a3);
  Transpose4x4Blocks(from, 0, column + 4, c0, c1, c2, c3);
  if constexpr (kLanes == 16) {  // one whole line per destination row
    StoreRowPart(to, column + 0, 0, a0, stream);
    StoreRowPart(to, column + 1, 0, a1, stream);
    StoreRowPart(to, column + 2, 0, a2, stream);
    StoreRowPart(to, column + 3, 0, a3, stream);
    StoreRowPart(to, column + 4, 0, c0, stream);
    StoreRowPart(to, column + 5, 0, c1, stream);
    StoreRowPart(to, column + 6, 0, c2, stream);
    StoreRowPart(to, column + 7, 0, c3, stream);
  } else {
    V b0, b1, b2, b3, e0, e1, e2, e3;
    Transpose4x4Blocks(from, 8, column, b0, b1, b2, b3);
    Transpose4x4Blocks(from, 8, column + 4, e0, e1, e2, e3);
    const auto line = [&](int row, V low, V high) {
      StoreRowPart(to, row, 0, low, stream);
      StoreRowPart(to, row, 8, high, stream);
    };
    line(column + 0, a0, b0);
    line(column + 1, a1, b1);
    line(column + 2, a2, b2);
    line(column + 3, a3, b3);
    line(column + 4, c0, e0);
    line(column + 5, c1, e1);
    line(column + 6, c2, e2);
    line(column + 7, c3, e3);
  }
}

#if HWY_TARGET <= HWY_AVX3  // 512-bit vectors (x86 targets' bits below AVX3's are AVX-512 ones)
// 16 lanes: each source row read whole (one 64-byte load, where the 4-block loads above take four
// loads and three inserts), 4x4 transposes inside the blocks, then each destination row's four
// blocks gathered from the four row groups with block swaps, blends and half concatenations: 16
// loads, 64 shuffles and 16 blends per tile against 64 loads and 80 shuffles.
template <class SourceRows, class DestinationRows>
HWY_INLINE void TransposeWholeRows(const SourceRows& from, const DestinationRows& to, bool stream) {
  const Tile d;
  const Pairs d2;
  using V = hn::Vec<Tile>;
  V c[4][4];  // c[g][m]: block b holds column 4b + m of rows 4g .. 4g + 3
  for (int g = 0; g < 4; ++g) {
    const V r0 = hn::LoadU(d, reinterpret_cast<const float*>(from(4 * g)));
    const V r1 = hn::LoadU(d, reinterpret_cast<const float*>(from(4 * g + 1)));
    const V r2 = hn::LoadU(d, reinterpret_cast<const float*>(from(4 * g + 2)));
    const V r3 = hn::LoadU(d, reinterpret_cast<const float*>(from(4 * g + 3)));
    const auto t0 = hn::BitCast(d2, hn::InterleaveLower(d, r0, r1));
    const auto t1 = hn::BitCast(d2, hn::InterleaveUpper(d, r0, r1));
    const auto t2 = hn::BitCast(d2, hn::InterleaveLower(d, r2, r3));
    const auto t3 = hn::BitCast(d2, hn::InterleaveUpper(d, r2, r3));
    c[g][0] = hn::BitCast(d, hn::InterleaveLower(d2, t0, t2));
    c[g][1] = hn::BitCast(d, hn::InterleaveUpper(d2, t0, t2));
    c[g][2] = hn::BitCast(d, hn::InterleaveLower(d2, t1, t3));
    c[g][3] = hn::BitCast(d, hn::InterleaveUpper(d2, t1, t3));
  }
  for (int m = 0; m < 4; ++m) {
    // Blocks of groups 0 and 1: [0.0 1.0 0.2 1.2] and [0.1 1.1 0.3 1.3]; of groups 2 and 3 alike.
    const V a = hn::OddEvenBlocks(hn::SwapAdjacentBlocks(c[1][m]), c[0][m]);
    const V b = hn::OddEvenBlocks(c[1][m], hn::SwapAdjacentBlocks(c[0][m]));
    const V e = hn::OddEvenBlocks(hn::SwapAdjacentBlocks(c[3][m]), c[2][m]);
    const V f = hn::OddEvenBlocks(c[3][m], hn::SwapAdjacentBlocks(c[2][m]));
    StoreRowPart(to, m, 0, hn::ConcatLowerLower(d, e, a), stream);
    StoreRowPart(to, 4 + m, 0, hn::ConcatLowerLower(d, f, b), stream);
    StoreRowPart(to, 8 + m, 0, hn::ConcatUpperUpper(d, e, a), stream);
    StoreRowPart(to, 12 + m, 0, hn::ConcatUpperUpper(d, f, b), stream);
  }
}
#endif

// Ordinary stores (a destination in cache, such as the staged transpose's L1 buffer): source rows
// first..first+kLanes-1, all 16 columns, each destination row's part stored on its own. Each
// source line is then read whole, once, while at most 8 of them are live: rows 2^k bytes apart
// share one 8-way L1 set (and at 64 KiB one L2 set), and 16 live lines evict each other.
template <class SourceRows, class DestinationRows>
HWY_INLINE void TransposeRowGroup(const SourceRows& from, const DestinationRows& to, int first) {
  using V = hn::Vec<Tile>;
  V a0, a1, a2, a3, b0, b1, b2, b3, c0, c1, c2, c3, e0, e1, e2, e3;
  Transpose4x4Blocks(from, first, 0, a0, a1, a2, a3);
  Transpose4x4Blocks(from, first, 4, b0, b1, b2, b3);
  Transpose4x4Blocks(from, first, 8, c0, c1, c2, c3);
  Transpose4x4Blocks(from, first, 12, e0, e1, e2, e3);
  StoreRowPart(to, 0, first, a0, false);
  StoreRowPart(to, 1, first, a1, false);
  StoreRowPart(to, 2, first, a2, false);
  StoreRowPart(to, 3, first, a3, false);
  StoreRowPart(to, 4, first, b0, false);
  StoreRowPart(to, 5, first, b1, false);
  StoreRowPart(to, 6, first, b2, false);
  StoreRowPart(to, 7, first, b3, false);
  StoreRowPart(to, 8, first, c0, false);
  StoreRowPart(to, 9, first, c1, false);
  StoreRowPart(to, 10, first, c2, false);
  StoreRowPart(to, 11, first, c3, false);
  StoreRowPart(to, 12, first, e0, false);
  StoreRowPart(to, 13, first, e1, false);
  StoreRowPart(to, 14, first, e2, false);
  StoreRowPart(to, 15, first, e3, false);
}

// 4 lanes: destination rows column..column+3 from four 4x4 transposes (16 vectors held).
template <class SourceRows, class DestinationRows>
HWY_INLINE void Transpose4Columns(const SourceRows& from, const DestinationRows& to, int column,
                                  bool stream) {
  using V = hn::Vec<Tile>;
  V a0, a1, a2, a3, b0, b1, b2, b3, c0, c1, c2, c3, e0, e1, e2, e3;
  Transpose4x4Blocks(from, 0, column, a0, a1, a2, a3);
  Transpose4x4Blocks(from, 4, column, b0, b1, b2, b3);
  Transpose4x4Blocks(from, 8, column, c0, c1, c2, c3);
  Transpose4x4Blocks(from, 12, column, e0, e1, e2, e3);
  const auto line = [&](int m, V v0, V v1, V v2, V v3) {
    StoreRowPart(to, column + m, 0, v0, stream);
    StoreRowPart(to, column + m, 4, v1, stream);
    StoreRowPart(to, column + m, 8, v2, stream);
    StoreRowPart(to, column + m, 12, v3, stream);
  };
  line(0, a0, b0, c0, e0);
  line(1, a1, b1, c1, e1);
  line(2, a2, b2, c2, e2);
  line(3, a3, b3, c3, e3);
}
#endif

template <class SourceRows, class DestinationRows>
HWY_INLINE void Transpose16x16(const SourceRows& from, const DestinationRows& to, bool streaming) {
#if HWY_TARGET == HWY_SCALAR  // one lane: no 4-lane vectors to shuffle
  (void)streaming;
  for (int j = 0; j < 16; ++j) {
    for (int i = 0; i < 16; ++i) std::memcpy(to(j) + 4 * i, from(i) + 4 * j, 4);
  }
#else
  const bool stream = streaming && to.aligned(kLanes * sizeof(float));
  // Unrolled by hand: with constant columns the row addresses fold into the loads (a loop kept
  // them in spilled registers: ~50 scalar instructions per 4 columns on AVX2).
  if (!stream && kLanes <= 8) {
    for (int first = 0; first < 16; first += static_cast<int>(kLanes)) {
      TransposeRowGroup(from, to, first);
    }
    return;
  }
#if HWY_TARGET <= HWY_AVX3
  TransposeWholeRows(from, to, stream);
#else
  if constexpr (kLanes >= 8) {
    Transpose8Columns(from, to, 0, stream);
    Transpose8Columns(from, to, 8, stream);
  } else {
    Transpose4Columns(from, to, 0, stream);
    Transpose4Columns(from, to, 4, stream);
    Transpose4Columns(from, to, 8, stream);
    Transpose4Columns(from, to, 12, stream);
  }
#endif
#endif
}

void TransposeStrided(const std::byte* source, int64_t source_stride, int64_t source_group,
                      std::byte* destination, int64_t destination_stride, int64_t destination_group,
                      bool streaming) {
  Transpose16x16(StridedRows<const std::byte>{source, source_stride, source_group},
                 StridedRows<std::byte>{destination, destination_stride, destination_group},
                 streaming);
}

void TransposeListed(const std::byte* const* source_rows, std::byte* const* destination_rows,
                     bool streaming) {
  Transpose16x16(ListedRows<const std::byte>{source_rows}, ListedRows<std::byte>{destination_rows},
                 streaming);
}

// The 16 source rows' 64 bytes stored unchanged into the 16 destination rows: the same lines read
// and written as Transpose16x16, without the shuffle (TransposeTuning::shuffle, the access
// pattern's own limit that BM_TransposeCeiling measures).
template <class SourceRows, class DestinationRows>
HWY_INLINE void CopyRows16(const SourceRows& from, const DestinationRows& to, bool streaming) {
#if HWY_TARGET == HWY_SCALAR
  (void)streaming;
  for (int k = 0; k < 16; ++k) std::memcpy(to(k), from(k), 64);
#else
  const Tile d;
  const bool stream = streaming && to.aligned(kLanes * sizeof(float));
  for (int k = 0; k < 16; ++k) {
    for (size_t c = 0; c < 16; c += kLanes) {
      const auto v = hn::LoadU(d, reinterpret_cast<const float*>(from(k)) + c);
      StoreLanes(d, v, reinterpret_cast<float*>(to(k)) + c, stream);
    }
  }
#endif
}

template <class SourceRows, class DestinationRows>
HWY_INLINE void MoveTile(const SourceRows& from, const DestinationRows& to, bool streaming,
                         bool shuffle) {
  if (shuffle) {
    Transpose16x16(from, to, streaming);
  } else {
    CopyRows16(from, to, streaming);
  }
}

// stream_runs and stream_copy from inside a kernel: the same code width as the kernel's (AVX2
// code where the kernel runs its AVX2 code on a wider CPU).
constexpr bool kAvx2Code = HWY_TARGET == HWY_AVX2;

// Source rows a transpose reads at a time by default (the variant's band rows may differ; the
// planner measures them, kernel_variant.h): reading fewer rows side by side runs closer to a
// sequential read, reading more gives longer destination runs. 128 measured best on the AVX2 host
// (docs/notes/2026-11-24-where-the-transpose-time-goes.md), 32 on the AVX-512 one
// (docs/notes/2026-11-24-zen5-fewer-source-rows.md). Keyed to the vector width because that is
// what told the two hosts apart.
constexpr int64_t kBandRows = HWY_MAX_BYTES >= 64 ? 32 : 128;

// Source lines prefetched per group of tiles, a group ahead: 128 rows x 4 lines (32 KiB) on Zen 3,
// 32 rows x 32 lines (64 KiB, 2 KiB per row) on Zen 5: a kernel that starts reading new rows
// waits for the hardware prefetcher, and these group sizes measured best on each host
// (docs/notes/2026-11-24-zen5-new-row-streams.md).
constexpr int64_t kPrefetchGroupLines = HWY_MAX_BYTES >= 64 ? 1024 : 512;

// Cache lines in address order, one Next() at a time, asked into the cache kInto names: `lines`
// contiguous lines per group, `groups` groups `group_bytes` apart per row, rows `row_bytes` apart,
// from `first`. Counters, not divisions: a division per prefetched line cost more than a tile's
// shuffles.
template <PrefetchInto kInto>
struct LineCursor {
  uintptr_t first;  // an address, not a pointer: it may lie past the buffer (prefetches only)
  int64_t row_bytes, group_bytes, groups, lines;
  int64_t row = 0, group = 0, line = 0;

  HWY_INLINE void PrefetchNext() {
    prefetch_into<kInto>(first +
                         static_cast<uintptr_t>(row * row_bytes + group * group_bytes + line * 64));
    if (++line == lines) {
      line = 0;
      if (++group == groups) {
        group = 0;
        ++row;
      }
    }
  }
};

// Calls f with the cache the variant's prefetches ask into (or none) as a compile-time constant,
// so that the loops f instantiates carry no branch per prefetched line.
template <class F>
HWY_INLINE void WithTransposePrefetch(Prefetch prefetch, F&& f) {
  switch (prefetch) {
    case Prefetch::kNone:
      return f(std::integral_constant<PrefetchInto, PrefetchInto::kNone>{});
    case Prefetch::kL2:
      return f(std::integral_constant<PrefetchInto, PrefetchInto::kL2>{});
    case Prefetch::kL1:
      return f(std::integral_constant<PrefetchInto, PrefetchInto::kL1>{});
  }
}

// Where a staged transpose puts its stage in `space` (the stage's bytes plus 4 KiB): just past the
// 4 KiB offsets [run, run + run_bytes) of the destination runs streamed out of it. A load whose
// address matches a pending store's in bits 0-11 waits for that store (4K aliasing: a false
// dependency in AMD's Software Optimization Guide for AMD64 Processors, 25112, 5.5), and the
// non-temporal stores of a run stay pending for long; when the destination's rows are a multiple
// of 4 KiB apart, every run of a band has the same offsets, and a stage anywhere else in the page
// had some of its rows read behind them
// (docs/notes/2026-11-26-zen3-write-pattern-and-4k-aliasing.md; no loss elsewhere:
// docs/notes/2026-11-27-zen5-host-rules.md).
inline std::byte* StageAvoiding(std::byte* space, const std::byte* run, int64_t run_bytes) {
  constexpr uintptr_t kPage = 4096;
  const uintptr_t want =
      (reinterpret_cast<uintptr_t>(run) + static_cast<uintptr_t>(run_bytes) + 63) / 64 * 64 % kPage;
  return space + (want - reinterpret_cast<uintptr_t>(space) % kPage + kPage) % kPage;
}

// staged_transpose.h's loop over 16x16 tiles (columns a multiple of 16, at least 16 rows),
// compiled per target so that the tile kernel and the prefetches are inlined: the same loop
// calling the dispatched 16x16 kernel, an out-of-line prefetch and two divisions per prefetched
// line spent more on the calls and divisions than on the tiles
// (docs/notes/2026-11-23-every-case-after-kernel-work.md).
//
// Bands of t.band_rows source rows, a group of columns at a time; each tile column of a band goes
// through the stage (or, t.direct, straight to the destination). With t.two_bands, band b and band
// b + half the bands go tile column by tile column together: each destination row then takes two
// runs in turn, half a row apart, from two sets of source rows.
//
// The bands after the first start `lead` rows past a multiple of the band, where the destination
// rows' lines start, so that their runs fill whole lines: the first band takes the lead rows
// too, the last one the rows left over (a last band under 16 rows joins the one before). A band
// whose rows are not a multiple of 16 past its start takes one more tile, overlapping its
// neighbour (the same elements written twice).
template <PrefetchInto kInto>
void StagedTransposeTilesIn(const std::byte* source, int64_t rows, int64_t source_row_bytes,
                            std::byte* destination, int64_t columns, int64_t destination_row_bytes,
                            int64_t lead, const TransposeTuning& t) {
  constexpr int64_t kTile = 16;
  constexpr int64_t kMaxRows = 128;
  const int64_t band_rows = HWY_MIN(kMaxRows, HWY_MAX(kTile, t.band_rows / kTile * kTile));
  int64_t bands = HWY_MAX(1, (rows - lead + band_rows - 1) / band_rows);
  if (bands > 1 && rows - (lead + (bands - 1) * band_rows) < kTile) --bands;
  const auto band_start = [&](int64_t k) {
    return k == 0 ? 0 : k >= bands ? rows : lead + k * band_rows;
  };
  // StageAvoiding aligns each stage to a line. A band holds up to band_rows + 31 rows.
  std::byte stage_space[2][kTile * (kMaxRows + 2 * kTile) * 4 + 4096];
  const int64_t slots = t.two_bands && bands >= 2 ? (bands + 1) / 2 : bands;
  for (int64_t slot = 0; slot < slots; ++slot) {
    int64_t first[2] = {band_start(slot), band_start(slot + slots)};
    int64_t band[2] = {band_start(slot + 1) - first[0], 0};
    if (slots != bands && slot + slots < bands) band[1] = band_start(slot + slots + 1) - first[1];
    const int in_flight = band[1] > 0 ? 2 : 1;
    // Where each band's tiles start: on the grid of the destination's lines (lead + 16k), and
    // at the band's own start before it.
    int64_t grid[2];
    for (int b = 0; b < in_flight; ++b) grid[b] = ((lead - first[b]) % kTile + kTile) % kTile;
    const int64_t lines_per_row = HWY_MAX(1, t.group_lines / band[0]);
    const int64_t group_columns = lines_per_row * kTile;
    for (int64_t g0 = 0; g0 < columns; g0 += group_columns) {
      const int64_t g1 = HWY_MIN(columns, g0 + group_columns);
      // The next group's lines, row by row, one per row a tile adds. After a band's last group,
      // the next band's first: its rows are new streams, which the hardware prefetcher finds
      // late (the lines past these rows' ends, asked for before, were mostly this band's own).
      LineCursor<kInto> next[2];
      for (int b = 0; b < in_flight; ++b) {
        const std::byte* from = source + first[b] * source_row_bytes;
        next[b] = {reinterpret_cast<uintptr_t>(from) +
                       static_cast<uintptr_t>(g1 < columns ? g1 * 4 : band[b] * source_row_bytes),
                   source_row_bytes, 0, 1, lines_per_row};
      }
      for (int64_t j0 = g0; j0 < g1; j0 += kTile) {
        for (int b = 0; b < in_flight; ++b) {
          const std::byte* from = source + first[b] * source_row_bytes + j0 * 4;
          std::byte* to = destination + j0 * destination_row_bytes + first[b] * 4;
          const int64_t band_bytes = band[b] * 4;
          std::byte* stage = t.direct ? nullptr : StageAvoiding(stage_space[b], to, band_bytes);
          // The tile at row i0 of the band, after prefetching as many lines as rows it adds.
          const auto tile = [&](int64_t i0, int64_t added) {
            for (int64_t u = 0; u < added; ++u) next[b].PrefetchNext();
            const StridedRows<const std::byte> rows_from{from + i0 * source_row_bytes,
                                                         source_row_bytes, 8 * source_row_bytes};
            if (t.direct) {
              MoveTile(rows_from,
                       StridedRows<std::byte>{to + i0 * 4, destination_row_bytes,
                                              8 * destination_row_bytes},
                       true, t.shuffle);
            } else {
              MoveTile(rows_from,
                       StridedRows<std::byte>{stage + i0 * 4, band_bytes, 8 * band_bytes}, false,
                       t.shuffle);
            }
          };
          if (grid[b] != 0) tile(0, grid[b]);
          int64_t i0 = grid[b];
          for (; i0 + kTile <= band[b]; i0 += kTile) tile(i0, kTile);
          if (i0 != band[b]) tile(band[b] - kTile, band[b] - i0);
          // Each destination row's band goes out as one non-temporal run (streaming_kernels.cpp).
          if (!t.direct) {
            stream_runs(to, destination_row_bytes, stage, band_bytes,
                        static_cast<size_t>(band_bytes), kTile, kAvx2Code);
          }
        }
      }
    }
  }
}

void StagedTransposeTiles(const std::byte* source, int64_t rows, int64_t source_row_bytes,
                          std::byte* destination, int64_t columns, int64_t destination_row_bytes,
                          int64_t lead, const TransposeTuning& tuning) {
  WithTransposePrefetch(tuning.prefetch, [&](auto into) {
    StagedTransposeTilesIn<into.value>(source, rows, source_row_bytes, destination, columns,
                                       destination_row_bytes, lead, tuning);
  });
}

// A band of tiles that continue each other along 16 destination rows (band_destination: one
// tile row) whose destination cannot take vector-aligned streaming stores and whose rows do not
// all start the same whole number of elements into a line (those are realigned instead, see
// RealignedBand; Fortran-order arrays whose columns are not a multiple of 16 floats long come
// here): the tiles go to an aligned stage, up to kStageTiles at a time,
// and each row's run then leaves with stream_runs, which streams whatever the alignment. Stored
// straight, each tile row would be plain 64-byte stores across two lines, read back from memory
// first. The runs' first and last lines are still written in two parts, by two pieces; plain
// stores for those measured worse. Aligned destinations keep the straight stores: the stage
// only adds work where the stores are already whole lines
// (docs/notes/2026-11-24-zen5-new-row-streams.md).
constexpr int64_t kStageTiles = 16;

template <PrefetchInto kInto>
void StagedBand(const TileBlock& b, const std::byte* source, std::byte* destination,
                LineCursor<kInto>& cursor) {
  LineCursor<kInto> next = cursor;  // kept in registers, as in RealignedBand
  constexpr int64_t kTile = 16;
  HWY_ALIGN std::byte stage[kTile * kStageTiles * kTile * 4];
  for (int64_t r0 = 0; r0 < b.band_count; r0 += kStageTiles) {
    const int64_t tiles = HWY_MIN(kStageTiles, b.band_count - r0);
    const int64_t row_bytes = tiles * kTile * 4;
    for (int64_t r = 0; r < tiles; ++r) {
      for (int64_t u = 0; u < b.prefetch_lines; ++u) next.PrefetchNext();
      MoveTile(StridedRows<const std::byte>{source + (r0 + r) * b.band_source, b.source_stride,
                                            b.source_group},
               StridedRows<std::byte>{stage + r * kTile * 4, row_bytes, 8 * row_bytes}, false,
               b.shuffle);
    }
    std::byte* to = destination + r0 * b.band_destination;
    const auto run = static_cast<size_t>(row_bytes);
    stream_runs(to, b.destination_stride, stage, row_bytes, run, 8, kAvx2Code);
    stream_runs(to + b.destination_group, b.destination_stride, stage + 8 * row_bytes, row_bytes,
                run, 8, kAvx2Code);
  }
  cursor = next;
}

// A band of 16-row tiles along 16 destination rows that all start `lead` elements (1..15) past a
// line boundary (NumPy's Fortran-order arrays start 16 bytes into one; block_transpose sets
// b.realigned): the tiles are taken `lead` source rows earlier, so that each one's destination
// rows are whole aligned lines, streamed straight from registers. Tile j covers the band's rows
// 16j - lead .. 16j + 15 - lead; the first reads the last rows of the band before
// (b.after_band), or else only its rows from 0 on are written, as partial lines through a stage;
// the band's last `lead` rows likewise, unless the band after covers them (b.before_band).
// Staged instead (StagedBand), every tile row's line is written in two parts by two bands, which
// ran clearly slower; realigned, such a destination runs close to an aligned one
// (docs/notes/2026-11-25-fortran-destinations-whole-lines.md; pieces of 64 band steps walked down
// the rows, block_transpose).
template <PrefetchInto kInto>
void RealignedBand(const TileBlock& b, const std::byte* source, std::byte* destination, int lead,
                   LineCursor<kInto>& cursor) {
  constexpr int kTile = 16;
  // Kept in registers: through the reference, 3 loads and stores each.
  LineCursor<kInto> next = cursor;
  // Source row m of a realigned tile, from the start of the 16-row group it ends in.
  int64_t offsets[kTile];
  for (int m = 0; m < kTile; ++m) {
    const int k = m < lead ? kTile - lead + m : m - lead;
    offsets[m] =
        (k & 7) * b.source_stride + (k >> 3) * b.source_group - (m < lead ? b.band_source : 0);
  }
  const StridedRows<std::byte> to{destination - 4 * lead, b.destination_stride,
                                  b.destination_group};
  const auto partial = [&](int64_t group, int first, int count) {
    // Rows first..first+count-1 of group `group`'s tile, through a stage.
    HWY_ALIGN std::byte stage[kTile * kTile * 4];
    const StridedRows<std::byte> staged{stage, kTile * 4, 8 * kTile * 4};
    MoveTile(StridedRows<const std::byte>{source + group * b.band_source, b.source_stride,
                                          b.source_group},
             staged, false, b.shuffle);
    for (int k = 0; k < kTile; ++k) {
      stream_copy(to(k) + (group * kTile + lead + first) * 4, staged(k) + first * 4,
                  4 * static_cast<size_t>(count), kAvx2Code);
    }
  };
  for (int64_t u = 0; u < b.prefetch_lines; ++u) next.PrefetchNext();
  if (!b.after_band) partial(0, 0, kTile - lead);
  for (int64_t j = b.after_band ? 0 : 1; j < b.band_count; ++j) {
    if (j > 0) {
      for (int64_t u = 0; u < b.prefetch_lines; ++u) next.PrefetchNext();
    }
    MoveTile(OffsetRows<const std::byte>{source + j * b.band_source, offsets},
             StridedRows<std::byte>{to.base + j * kTile * 4, to.stride, to.group}, true, b.shuffle);
  }
  if (!b.before_band) partial(b.band_count - 1, kTile - lead, lead);
  cursor = next;
}

template <PrefetchInto kInto>
void TransposeBlockWith(const TileBlock& b) {
  LineCursor<kInto> next{b.next, b.prefetch_row, b.prefetch_group, b.groups, b.tile_lines};
  constexpr int64_t kTileRow = 16 * 4;
  if (b.realigned) {
    const int lead = static_cast<int>(reinterpret_cast<uintptr_t>(b.destination) % 64 / 4);
    for (int64_t g = 0; g < b.sweep_count; ++g) {
      RealignedBand(b, b.source + g * b.sweep_source, b.destination + g * b.sweep_destination, lead,
                    next);
    }
    return;
  }
  if (b.streaming && b.band_destination == kTileRow &&
      !StridedRows<std::byte>{b.destination, b.destination_stride, b.destination_group}.aligned(
          HWY_MIN(64, HWY_MAX_BYTES))) {
    for (int64_t g = 0; g < b.sweep_count; ++g) {
      StagedBand(b, b.source + g * b.sweep_source, b.destination + g * b.sweep_destination, next);
    }
    return;
  }
  if (b.rows_shift != 0) {
    // Destination rows -rows_shift .. 15 - rows_shift of the groups of 8 (see TileBlock).
    int64_t offsets[16];
    for (int m = 0; m < 16; ++m) {
      const int i = m - b.rows_shift;
      offsets[m] = (i & 7) * b.destination_stride + (i >> 3) * b.destination_group;
    }
    for (int64_t g = 0; g < b.sweep_count; ++g) {
      for (int64_t u = 0; u < b.prefetch_lines; ++u) next.PrefetchNext();
      MoveTile(StridedRows<const std::byte>{b.source + g * b.sweep_source, b.source_stride,
                                            b.source_group},
               OffsetRows<std::byte>{b.destination + g * b.sweep_destination, offsets}, b.streaming,
               b.shuffle);
    }
    return;
  }
  for (int64_t g = 0; g < b.sweep_count; ++g) {
    for (int64_t r = 0; r < b.band_count; ++r) {
      for (int64_t u = 0; u < b.prefetch_lines; ++u) next.PrefetchNext();
      MoveTile(
          StridedRows<const std::byte>{b.source + g * b.sweep_source + r * b.band_source,
                                       b.source_stride, b.source_group},
          StridedRows<std::byte>{b.destination + g * b.sweep_destination + r * b.band_destination,
                                 b.destination_stride, b.destination_group},
          b.streaming, b.shuffle);
    }
  }
}

void TransposeBlock(const TileBlock& b) {
  WithTransposePrefetch(b.prefetch, [&](auto into) { TransposeBlockWith<into.value>(b); });
}

const char* TransposeTarget() {
  return hwy::TargetName(HWY_TARGET);
}

int64_t TransposeBandRows() {
  return kBandRows;
}

int64_t TransposePrefetchGroupLines() {
  return kPrefetchGroupLines;
}

}  // namespace tessera::relayout::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "relayout/dispatch_below.h"

namespace tessera::relayout {

HWY_EXPORT(TransposeStrided);
HWY_EXPORT(TransposeListed);
HWY_EXPORT(TransposeTarget);
HWY_EXPORT(TransposeBandRows);
HWY_EXPORT(TransposePrefetchGroupLines);
HWY_EXPORT(StagedTransposeTiles);
HWY_EXPORT(TransposeBlock);

void transpose_16x16_block(const TileBlock& block) {
  TESSERA_DISPATCH(TransposeBlock, block.avx2)(block);
}

void staged_transpose_tiles(const std::byte* source, int64_t rows, int64_t source_row_bytes,
                            std::byte* destination, int64_t columns, int64_t destination_row_bytes,
                            int64_t lead, const TransposeTuning& tuning) {
  TESSERA_DISPATCH(StagedTransposeTiles, tuning.avx2)
  (source, rows, source_row_bytes, destination, columns, destination_row_bytes, lead, tuning);
}

void transpose_16x16_f32(const std::byte* source, int64_t source_stride, int64_t source_group,
                         std::byte* destination, int64_t destination_stride,
                         int64_t destination_group, bool streaming) {
  HWY_DYNAMIC_DISPATCH(TransposeStrided)
  (source, source_stride, source_group, destination, destination_stride, destination_group,
   streaming);
}

void transpose_16x16_f32(const std::byte* const* source_rows, std::byte* const* destination_rows,
                         bool streaming) {
  HWY_DYNAMIC_DISPATCH(TransposeListed)(source_rows, destination_rows, streaming);
}

const char* transpose_target() {
  return HWY_DYNAMIC_DISPATCH(TransposeTarget)();
}

const char* staged_transpose_target(bool avx2) {
  return TESSERA_DISPATCH(TransposeTarget, avx2)();
}

int64_t transpose_band_rows(bool avx2) {
  return TESSERA_DISPATCH(TransposeBandRows, avx2)();
}

int64_t transpose_prefetch_group_lines(bool avx2) {
  return TESSERA_DISPATCH(TransposePrefetchGroupLines, avx2)();
}

}  // namespace tessera::relayout
#endif  // HWY_ONCE
