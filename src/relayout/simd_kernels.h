// SIMD kernels written once with Highway and dispatched at run time to the best target of this
// CPU (SSE2 to AVX-512 on x86, NEON/SVE on ARM), so the library is built for the baseline and
// runs anywhere: streaming copies (streaming_kernels.cpp), 16x16 transposes
// (portable_transpose.cpp), row interleaves and bit packing (portable_interleave.cpp). A function
// returning false could not handle the request (shape); the caller's scalar loop takes over.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>  // _mm_stream_si32/64: SSE2, every x86-64 CPU
#endif

#include "relayout/kernel_variant.h"

namespace tessera::relayout {

// Copies `bytes` with non-temporal stores of the widest vectors this CPU has (64 bytes with
// AVX-512, 32 with AVX2, 16 with NEON; docs/performance.md, "Method": the copy ceiling), or with
// AVX2's where `avx2` and the CPU has wider ones (every kernel below takes that choice, the
// variant's simd).
// The caller issues store_fence() before the data is read by another thread.
void stream_copy(std::byte* destination, const std::byte* source, std::size_t bytes, bool avx2);
void store_fence();
// `count` runs of `run_bytes`: run r goes from source + r * source_step to
// destination + r * destination_step, with non-temporal stores like stream_copy.
void stream_runs(std::byte* destination, int64_t destination_step, const std::byte* source,
                 int64_t source_step, std::size_t run_bytes, int64_t count, bool avx2);

// Fewer than 16 bytes with streaming stores: 8- and 4-byte ones (x86-64's movnti; Highway has no
// scalar stream) where the destination is aligned to them, plain stores for the odd bytes, and
// plain stores on other CPUs. For the ends of streamed runs: a plain store into a line whose
// other bytes are still in a write-combining buffer waits for that buffer and then reads the
// line back; rows 8 bytes off a 16-byte boundary (T(8,128) <-> f32[4090,4090]) paid that at
// both ends of every run (docs/notes/2026-11-24-run-end-streaming-stores.md).
inline void stream_small(uint8_t* to, const uint8_t* from, std::size_t bytes) {
#if defined(__x86_64__) || defined(_M_X64)
  std::size_t i = 0;
  while (i < bytes) {
    const auto address = reinterpret_cast<uintptr_t>(to + i);
    if (address % 8 == 0 && i + 8 <= bytes) {
      long long word;
      std::memcpy(&word, from + i, 8);
      _mm_stream_si64(reinterpret_cast<long long*>(to + i), word);
      i += 8;
    } else if (address % 4 == 0 && i + 4 <= bytes) {
      int word;
      std::memcpy(&word, from + i, 4);
      _mm_stream_si32(reinterpret_cast<int*>(to + i), word);
      i += 4;
    } else {
      to[i] = from[i];
      ++i;
    }
  }
#else
  if (bytes != 0) std::memcpy(to, from, bytes);
#endif
}

// The last bytes of a row written by a kernel: stream_small when the row is streamed, else plain.
inline void store_small(uint8_t* to, const uint8_t* from, std::size_t bytes, bool streaming) {
  if (streaming) {
    stream_small(to, from, bytes);
  } else if (bytes != 0) {
    std::memcpy(to, from, bytes);
  }
}

// Whether `p` is aligned to elements of `bytes` (> 0): kernels that read or write elements
// through pointers of their own type need it (Highway's EMU128 target dereferences them).
inline bool aligned_to(const void* p, int bytes) {
  return bytes > 0 && reinterpret_cast<uintptr_t>(p) % static_cast<unsigned>(bytes) == 0;
}

// Highway's name of the target stream_copy and stream_runs run with here: "AVX3" (AVX-512),
// "AVX2", "SSE4", "NEON", "SVE", ...
const char* stream_target(bool avx2);

// Which cache a prefetch asks a line into (__builtin_prefetch's locality): the L1 (x86 prefetcht0,
// ARM PLDL1KEEP; hwy::Prefetch's) or the L2 only (prefetcht1, PLDL2KEEP); kNone asks for nothing.
// The transposes ask for the lines of 16-128 source rows a group ahead, into the cache their
// variant names (kernel_variant.h); the 4-row packings ask into the L2 (portable_interleave.cpp).
enum class PrefetchInto : int { kNone = -1, kL2 = 2, kL1 = 3 };

// Always inlined: GCC takes a function whose only statement is a prefetch for one without side
// effects, and where it did not inline it (Highway's per-target code in
// portable_interleave.cpp) it deleted the calls: that object held no prefetcht1 at all, so the
// packings' first measurement of this hint measured no prefetch.
template <PrefetchInto kInto>
[[gnu::always_inline]] inline void prefetch_into(uintptr_t address) {
  if constexpr (kInto == PrefetchInto::kL1) {
    __builtin_prefetch(reinterpret_cast<const void*>(address), 0, 3);
  } else if constexpr (kInto == PrefetchInto::kL2) {
    __builtin_prefetch(reinterpret_cast<const void*>(address), 0, 2);
  } else {
    (void)address;
  }
}

[[gnu::always_inline]] inline void prefetch_to_l2(uintptr_t address) {
  prefetch_into<PrefetchInto::kL2>(address);
}

// The line at base + offset bytes, into the L2 (which may lie past the end of the buffer: a
// prefetch never faults, and the address is formed without pointer arithmetic). Always inlined,
// as prefetch_to_l2 is: a call left in place would be deleted, and the transposes issue one per
// source line, where a call each cost several percent of a tile.
[[gnu::always_inline]] inline void prefetch_line(const std::byte* base, int64_t offset) {
  prefetch_to_l2(reinterpret_cast<uintptr_t>(base) + static_cast<uintptr_t>(offset));
}

// One 16x16 tile of 4-byte elements: destination_rows[j][i] = source_rows[i][j], i, j < 16.
// Highway code (portable_transpose.cpp) dispatched to the best target of this CPU: 4x4
// transposes inside 128-bit blocks of 4 (SSE4, NEON, SVE), 8 (AVX2) or 16 (AVX-512) floats.
// Each destination row gets its 64 bytes from adjacent stores, so non-temporal stores fill
// whole lines. It replaced a hand-written AVX2 kernel that measured about the same
// (docs/notes/2026-11-23-staged-transposes.md) and could not use AVX-512.
void transpose_16x16_f32(const std::byte* const* source_rows, std::byte* const* destination_rows,
                         bool streaming);
// The same with rows given by strides (bytes): source row k (< 16) at
// source + (k % 8) * source_stride + (k / 8) * source_group, destination rows alike. A plain matrix
// has group = 8 * stride; T(8,128) tiles put the second group of 8 rows one tile further.
void transpose_16x16_f32(const std::byte* source, int64_t source_stride, int64_t source_group,
                         std::byte* destination, int64_t destination_stride,
                         int64_t destination_group, bool streaming);
// How a plain transpose of 4-byte elements runs (its variant, kernel_variant.h).
struct TransposeTuning {
  int64_t band_rows = 32;      // source rows at a time: 16, 32, 64 or 128
  int64_t group_lines = 1024;  // source lines prefetched per group of tiles, a group ahead
  Prefetch prefetch = Prefetch::kL1;
  bool direct = false;     // non-temporal stores straight from registers, no stage
  bool two_bands = false;  // bands b and b + half the bands taken tile by tile together
  bool shuffle = true;     // false: the same lines moved untransposed (the access pattern's limit)
  bool avx2 = false;       // AVX2 code where the CPU has wider vectors
};
// staged_transpose_f32 (staged_transpose.h) for columns that are a multiple of 16 and at least
// 16 rows, whose bands after the first start `lead` (0..15) rows past a multiple of the band: where
// the destination rows' lines start. Highway code like transpose_16x16_f32.
void staged_transpose_tiles(const std::byte* source, int64_t rows, int64_t source_row_bytes,
                            std::byte* destination, int64_t columns, int64_t destination_row_bytes,
                            int64_t lead, const TransposeTuning& tuning);
// A block of 16x16 tiles of 4-byte elements (byte offsets): tile (g, r), g < sweep_count,
// r < band_count, is transpose_16x16_f32(source + g * sweep_source + r * band_source, ...) with
// the strides and groups below, destination likewise; the tiles go along the sweep, then down
// the band. Meanwhile `prefetch_lines` lines are prefetched per tile, in address order: line
// `k` of group `g` of row `r` at next + r * prefetch_row + g * prefetch_group + k * 64, with
// `tile_lines` lines per group and `groups` groups per row. One dispatched call per block, so
// the tile kernel and the prefetches are inlined.
struct TileBlock {
  const std::byte* source;
  std::byte* destination;
  int64_t source_stride, source_group, destination_stride, destination_group;
  int64_t sweep_count, sweep_source, sweep_destination;
  int64_t band_count, band_source, band_destination;
  uintptr_t next;  // an address, not a pointer: the last block's "next" lies past the buffer
  int64_t prefetch_lines, prefetch_row, prefetch_group, groups, tile_lines;
  bool streaming;
  Prefetch prefetch;  // the cache the prefetches ask into (or none)
  bool shuffle;       // false: lines moved untransposed (TransposeTuning::shuffle)
  bool avx2;          // AVX2 code where the CPU has wider vectors
  // Destination rows that start the same whole number of elements into a line, bands of 16
  // elements along them (band_destination = 64 bytes): written in aligned lines (RealignedBand,
  // portable_transpose.cpp), the line shared with the band before written by this block when
  // `after_band` (that band, just before in the source, wrote the rest) and the one shared with
  // the band after left to it when `before_band`.
  bool realigned, after_band, before_band;
  // A source whose rows start this many elements (1..15) past a line boundary, read from there
  // (Fortran order into tiles, NumPy's arrays 16 bytes in: `source` is moved back by as many
  // elements): destination rows -rows_shift .. 15 - rows_shift of the tile, in groups of 8 rows
  // destination_group apart, 8 to a group destination_stride apart. One band; 0 for none.
  int rows_shift;
};
void transpose_16x16_block(const TileBlock& block);
// Highway's name of the target transpose_16x16_f32 runs with here ("AVX2", "AVX3", "NEON", ...).
const char* transpose_target();
// The same for staged_transpose_tiles and transpose_16x16_block, held to AVX2 with `avx2`.
const char* staged_transpose_target(bool avx2);
// How many source rows a transpose reads at a time by default (a multiple of 16) on the target it
// runs with: 128 on AVX2 hosts, 32 on AVX-512 ones (measurements in portable_transpose.cpp).
int64_t transpose_band_rows(bool avx2);
// Source lines a transpose prefetches per group by default, a group ahead and row by row (512 on
// AVX2 hosts, 1024 on AVX-512 ones: 2 KiB from each of 32 rows; portable_transpose.cpp).
int64_t transpose_prefetch_group_lines(bool avx2);

// pack_bits_32_rows takes rows of a multiple of this many bytes (one 128-bit vector; wider
// targets do the rest of a row with 128-bit vectors) and refuses others. interleave_rows and
// deinterleave_rows take any length (the last bytes below 16 unit by unit); the plan sends them
// rows of at least this many bytes.
constexpr int64_t kInterleaveRowBytes = 16;

// Interleaves `rows` (2 or 4) source rows of `columns` elements of `element_bytes` (1, 2 or 4):
// destination[j * rows + i] = row_i[j]. This is the
// packing of XLA's (2,1) and (4,1) tiles. `repeat` times, the next group `source_step` /
// `destination_step` bytes further. Non-temporal stores when `streaming` and the group's
// destination is aligned to the vector. Returns false (nothing written) for other unit sizes or row
// counts.
// E.g. rows 2, 2-byte elements a0 a1 .. and b0 b1 ..: destination = a0 b0 a1 b1 ...
// Highway code (portable_interleave.cpp) dispatched to the best target of this CPU.
bool interleave_rows(const std::byte* source, int64_t source_row_bytes, int rows, int element_bytes,
                     int64_t columns, std::byte* destination, bool streaming, int64_t repeat = 1,
                     int64_t source_step = 0, int64_t destination_step = 0, bool avx2 = false);

// The inverse of interleave_rows: row_i[j] = source[j * rows + i] for `rows` (2 or 4)
// destination rows `destination_row_bytes` apart, `columns` elements of `element_bytes` each
// (other unit sizes or row counts, or a source or source step not aligned to the unit: false,
// nothing written). This unpacks XLA's
// (2,1) and (4,1) tiles. `repeat` and the steps as for interleave_rows. Non-temporal stores when
// `streaming` and every destination row of a group starts a 64-byte line and holds whole lines
// (each row's line then goes out whole); plain stores otherwise.
// E.g. rows 2, source a0 b0 a1 b1 ...: row 0 = a0 a1 ..., row 1 = b0 b1 ...
bool deinterleave_rows(const std::byte* source, std::byte* destination,
                       int64_t destination_row_bytes, int rows, int element_bytes, int64_t columns,
                       bool streaming, int64_t repeat = 1, int64_t source_step = 0,
                       int64_t destination_step = 0, bool avx2 = false);

// destination[j] = source[j * source_stride] (elements; negative: backwards from `source`) for
// j < count, elements of `element_bytes`: strides -1 and 2 for 2, 4 and 8 bytes (vector Reverse,
// ConcatEven), any other stride for 4 and 8 (GatherIndex), both sides aligned to the element
// size; false (nothing written) otherwise.
// Non-temporal stores when `streaming` and the destination is aligned to the vector. Highway
// code (portable_gather.cpp). E.g. stride -1: source[0], source[-1], source[-2], ...
bool gather_row(const std::byte* source, int64_t source_stride, int element_bytes, int64_t count,
                std::byte* destination, bool streaming);

// The strides and element sizes gather_row takes (given aligned sides).
inline bool gather_row_takes(int64_t source_stride, int element_bytes) {
  return element_bytes == 4 || element_bytes == 8 ||
         (element_bytes == 2 && (source_stride == -1 || source_stride == 2));
}

// Highway's name of the target gather_row runs with here.
const char* gather_target();

// Packs the low bits of 32 source rows of bytes into 32-bit words: bit i of word j =
// row_i[j] & 1 (XLA's (32,1) tile with E(1)). `columns` is a multiple of kInterleaveRowBytes
// (else false, nothing written). E.g. rows 0 and 5 all ones, the rest zero: every word 0x21.
bool pack_bits_32_rows(const std::byte* source, int64_t source_row_bytes, int64_t columns,
                       std::byte* destination, bool streaming, bool avx2 = false);

// Highway's name of the target interleave_rows and deinterleave_rows run with here, and of the one
// pack_bits_32_rows runs with (AVX2 with `avx2` where the CPU has wider vectors).
const char* interleave_target(bool avx2 = false);
const char* pack_bits_target(bool avx2 = false);

}  // namespace tessera::relayout
