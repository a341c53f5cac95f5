// The row interleaves of XLA's (2,1) and (4,1) packing (and their inverse, for unpacking), and the
// (32,1) bit packing of pred, written
// once with Highway and dispatched at run time (SSE2/SSSE3/SSE4/AVX2/AVX-512 on x86, NEON/SVE on
// ARM). They replaced hand-written AVX2 kernels that measured the same
// (docs/notes/2026-11-23-highway-interleaves.md) and left every other CPU to the scalar loops.
//
// Worked example, rows = 2, 1-byte units, 32-byte AVX2 vectors: rows a and b give
//   destination = a0 b0 a1 b1 ... a31 b31 (64 bytes, two vectors).
// InterleaveLower/Upper pair lanes within each 128-bit block only, so each input's 64-bit lanes are
// first put in the order (0, 2, 1, 3): block 0 then holds bytes 0-7 and 16-23, and the lower halves
// of the blocks interleave to a0 b0 .. a7 b7 | a8 b8 .. a15 b15 = the first output vector.
//
// This file is included once per target by hwy/foreach_target.h.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "relayout/portable_interleave.cpp"
#include <hwy/cache_control.h>
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "relayout/simd_kernels.h"
#include "relayout/store_lanes-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tessera::relayout::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR  // one lane: nothing to interleave, the callers' scalar loops run

// Whole vectors of bytes, and 16-byte vectors for the rest of a row (the contract asks for
// multiples of 16 bytes, so every target accepts the same shapes).
using Bytes = hn::ScalableTag<uint8_t>;
using Bytes16 = hn::FixedTag<uint8_t, 16>;

// True when D has more than one 128-bit block (AVX2, AVX-512; SVE beyond 128 bits).
template <class D>
constexpr bool kManyBlocks = HWY_HAVE_SCALABLE || hn::MaxLanes(D()) > 16;

// Table for the 64-bit lane order that puts lanes k and nb + k into block k (nb blocks): on AVX2
// (0, 2, 1, 3), the permute4x64(0xD8) of the hand-written kernel; on AVX-512 (0, 4, 1, 5, ...).
// One block (SSE4, NEON): no table, the order is the identity.
template <class D>
HWY_INLINE auto BlockPairOrder(D d) {
  if constexpr (kManyBlocks<D>) {
    const hn::Repartition<uint64_t, D> d64;
    const size_t lanes = hn::Lanes(d64);
    int64_t order[HWY_MAX_BYTES / 8];
    for (size_t i = 0; i < lanes; ++i) {
      order[i] = static_cast<int64_t>(i / 2 + (i % 2) * (lanes / 2));
    }
    return hn::SetTableIndices(d64, order);
  } else {
    (void)d;
    return 0;
  }
}

// low = a0 b0 a1 b1 ... over the first halves of a and b (units of T), high over the second halves.
template <typename T, class D, class Order>
HWY_INLINE void InterleaveWhole(D d, hn::Vec<D> a, hn::Vec<D> b, const Order& order,
                                hn::Vec<D>& low, hn::Vec<D>& high) {
  if constexpr (kManyBlocks<D>) {
    const hn::Repartition<uint64_t, D> d64;
    a = hn::BitCast(d, hn::TableLookupLanes(hn::BitCast(d64, a), order));
    b = hn::BitCast(d, hn::TableLookupLanes(hn::BitCast(d64, b), order));
  } else {
    (void)order;
  }
  const hn::Repartition<T, D> du;
  low = hn::BitCast(d, hn::InterleaveLower(du, hn::BitCast(du, a), hn::BitCast(du, b)));
  high = hn::BitCast(d, hn::InterleaveUpper(du, hn::BitCast(du, a), hn::BitCast(du, b)));
}

// Interleaves kRows (2 or 4) vectors of units of kUnit bytes (r2, r3 unused with 2 rows) and stores
// the kRows vectors of output at `to`: row i's unit j lands at unit j * kRows + i. Vectors are
// passed one by one: SVE's sizeless vectors cannot be array elements.
template <size_t kUnit, int kRows, class D, class Order>
HWY_INLINE void InterleaveStore(D d, hn::Vec<D> r0, hn::Vec<D> r1, hn::Vec<D> r2, hn::Vec<D> r3,
                                const Order& order, uint8_t* to, bool stream) {
  using Unit = hwy::UnsignedFromSize<kUnit>;
  const size_t n = hn::Lanes(d);
  hn::Vec<D> p_low, p_high;
  InterleaveWhole<Unit>(d, r0, r1, order, p_low, p_high);
  if constexpr (kRows == 2) {
    (void)r2, (void)r3;
    StoreLanes(d, p_low, to, stream);
    StoreLanes(d, p_high, to + n, stream);
  } else {
    using Pair = hwy::UnsignedFromSize<2 * kUnit>;  // a unit of rows 0-1 next to one of rows 2-3
    hn::Vec<D> q_low, q_high, o0, o1, o2, o3;
    InterleaveWhole<Unit>(d, r2, r3, order, q_low, q_high);
    InterleaveWhole<Pair>(d, p_low, q_low, order, o0, o1);
    InterleaveWhole<Pair>(d, p_high, q_high, order, o2, o3);
    StoreLanes(d, o0, to, stream);
    StoreLanes(d, o1, to + n, stream);
    StoreLanes(d, o2, to + 2 * n, stream);
    StoreLanes(d, o3, to + 3 * n, stream);
  }
}

// Asks for the lines of bytes [j, j + lanes) of each row of the next group, kRows rows on, one
// prefetch per line. The packings read a group's kRows rows side by side and then start kRows new
// streams, which the hardware prefetcher picks up late: the shorter the rows, the more it costs
// (docs/notes/2026-11-24-zen5-new-row-streams.md). Four rows ahead the lines go to the L2
// (prefetch_to_l2), two rows ahead to the L1, as each measured best on Zen 4
// (docs/notes/2026-11-25-zen4-unpacking-whole-lines.md). Addresses, not pointers: the next group
// may lie past the buffer, and a prefetch never faults.
template <int kRows>
HWY_INLINE void PrefetchNextGroup(const uint8_t* source, int64_t row_bytes, size_t j,
                                  size_t lanes) {
  if (lanes < 64 && j % 64 >= lanes) return;  // this vector's line was asked for already
  const uintptr_t next =
      reinterpret_cast<uintptr_t>(source) + static_cast<uintptr_t>(kRows * row_bytes) + j;
  for (int i = 0; i < kRows; ++i) {
    for (size_t k = 0; k < lanes; k += 64) {
      const uintptr_t line = next + static_cast<uintptr_t>(i * row_bytes) + k;
      if constexpr (kRows == 4) {
        prefetch_to_l2(line);
      } else {
        hwy::Prefetch(reinterpret_cast<const void*>(line));
      }
    }
  }
}

// Bytes [begin, end) of each row, whole vectors of D (end - begin a multiple of Lanes(d)).
template <size_t kUnit, int kRows, class D, class Order>
HWY_INLINE void InterleaveSpan(D d, const Order& order, const uint8_t* source, int64_t row_bytes,
                               size_t begin, size_t end, uint8_t* destination, bool stream) {
  for (size_t j = begin; j < end; j += hn::Lanes(d)) {
    PrefetchNextGroup<kRows>(source, row_bytes, j, hn::Lanes(d));
    const auto r0 = hn::LoadU(d, source + j);
    const auto r1 = hn::LoadU(d, source + row_bytes + j);
    if constexpr (kRows == 2) {
      InterleaveStore<kUnit, 2>(d, r0, r1, r0, r1, order, destination + j * 2, stream);
    } else {
      const auto r2 = hn::LoadU(d, source + 2 * row_bytes + j);
      const auto r3 = hn::LoadU(d, source + 3 * row_bytes + j);
      InterleaveStore<kUnit, 4>(d, r0, r1, r2, r3, order, destination + j * 4, stream);
    }
  }
}

template <size_t kUnit, int kRows>
void InterleaveGroups(const uint8_t* source, int64_t row_bytes, size_t bytes, uint8_t* destination,
                      bool streaming, int64_t repeat, int64_t source_step,
                      int64_t destination_step) {
  const Bytes d;
  const Bytes16 d16;
  const auto order = BlockPairOrder(d);
  const auto order16 = BlockPairOrder(d16);
  const size_t whole = bytes - bytes % hn::Lanes(d);
  const size_t vectors = bytes - bytes % 16;
  for (int64_t r = 0; r < repeat; ++r) {
    const uint8_t* from = source + r * source_step;
    uint8_t* to = destination + r * destination_step;
    // Non-temporal stores need aligned vectors; the 16-byte tail is then aligned too.
    const bool stream = streaming && reinterpret_cast<uintptr_t>(to) % hn::Lanes(d) == 0;
    InterleaveSpan<kUnit, kRows>(d, order, from, row_bytes, 0, whole, to, stream);
    InterleaveSpan<kUnit, kRows>(d16, order16, from, row_bytes, whole, vectors, to, stream);
    // The last units of rows that are not a multiple of 16 bytes (a partial tile's 126 bf16
    // columns), interleaved in a buffer and stored like the rest: no plain store into a line
    // that is being streamed (simd_kernels.h, stream_small).
    uint8_t tail[4 * 16];
    size_t k = 0;
    for (size_t j = vectors; j < bytes; j += kUnit) {
      for (int i = 0; i < kRows; ++i, k += kUnit)
        std::memcpy(tail + k, from + i * row_bytes + j, kUnit);
    }
    store_small(to + vectors * kRows, tail, k, stream);
  }
}

// The inverse of InterleaveGroups: kRows destination rows of `bytes` each from the units
// interleaved at `source` (unit j of row i at unit j * kRows + i): Highway's LoadInterleaved2/4
// split them, whole vectors of units and then 16-byte vectors for the rest of a row.
template <class D, int kRows>
HWY_INLINE void DeinterleaveSpan(D d, const uint8_t* source, size_t begin, size_t end,
                                 uint8_t* destination, int64_t row_bytes) {
  using Unit = hn::TFromD<D>;
  const hn::Repartition<uint8_t, D> d8;
  for (size_t j = begin; j < end; j += hn::Lanes(d8)) {
    const auto* from = reinterpret_cast<const Unit*>(source + j * kRows);
    hn::Vec<D> v0, v1, v2, v3;
    if constexpr (kRows == 2) {
      hn::LoadInterleaved2(d, from, v0, v1);
    } else {
      hn::LoadInterleaved4(d, from, v0, v1, v2, v3);
    }
    hn::StoreU(hn::BitCast(d8, v0), d8, destination + j);
    hn::StoreU(hn::BitCast(d8, v1), d8, destination + row_bytes + j);
    if constexpr (kRows == 4) {
      hn::StoreU(hn::BitCast(d8, v2), d8, destination + 2 * row_bytes + j);
      hn::StoreU(hn::BitCast(d8, v3), d8, destination + 3 * row_bytes + j);
    }
  }
}

// Streamed destination rows, 64 bytes of each at a time: the kRows rows' lines are loaded
// through LoadInterleaved2/4 a vector at a time and each row's line is then stored whole, back to
// back. Non-temporal parts of a line stored apart evict partial lines (slower than plain stores,
// docs/notes/2026-11-24-run-end-streaming-stores.md), while whole streamed lines roughly double
// the speed of plain stores, which read every destination line first
// (docs/notes/2026-11-25-zen4-unpacking-whole-lines.md).
// Only for fixed-size vectors of at most a line (kWholeLineVectors): an array of scalable vectors
// is not C++.
template <class D>
constexpr bool kWholeLineVectors =
    !HWY_HAVE_SCALABLE && hn::MaxLanes(D()) * sizeof(hn::TFromD<D>) <= 64;

template <class D, int kRows>
HWY_INLINE void DeinterleaveLines(D d, const uint8_t* source, size_t bytes, uint8_t* destination,
                                  int64_t row_bytes) {
  using Unit = hn::TFromD<D>;
  const hn::Repartition<uint8_t, D> d8;
  constexpr size_t kVectorBytes = hn::MaxLanes(decltype(d8)());
  constexpr size_t kPerLine = 64 / kVectorBytes;  // 1 (AVX-512), 2 (AVX2) or 4 (SSE4, NEON)
  for (size_t j = 0; j < bytes; j += 64) {
    hn::Vec<D> v[4][kPerLine];
    for (size_t k = 0; k < kPerLine; ++k) {
      const auto* from = reinterpret_cast<const Unit*>(source + (j + k * kVectorBytes) * kRows);
      if constexpr (kRows == 2) {
        hn::LoadInterleaved2(d, from, v[0][k], v[1][k]);
      } else {
        hn::LoadInterleaved4(d, from, v[0][k], v[1][k], v[2][k], v[3][k]);
      }
    }
    for (int i = 0; i < kRows; ++i) {
      for (size_t k = 0; k < kPerLine; ++k) {
        hn::Stream(hn::BitCast(d8, v[i][k]), d8,
                   destination + i * row_bytes + j + k * kVectorBytes);
      }
    }
  }
}

template <size_t kUnit, int kRows>
void DeinterleaveGroups(const uint8_t* source, uint8_t* destination, int64_t row_bytes,
                        size_t bytes, bool streaming, int64_t repeat, int64_t source_step,
                        int64_t destination_step) {
  using Unit = hwy::UnsignedFromSize<kUnit>;
  const hn::ScalableTag<Unit> d;
  const hn::FixedTag<Unit, 16 / kUnit> d16;
  const size_t whole = bytes - bytes % (hn::Lanes(d) * kUnit);
  const size_t vectors = bytes - bytes % 16;
  // DeinterleaveLines streams a group whose rows all start a line and hold whole lines (a line
  // shared with another group would get a plain store next to streamed ones).
  const bool whole_lines = streaming && row_bytes % 64 == 0 && bytes % 64 == 0;
  for (int64_t r = 0; r < repeat; ++r) {
    const uint8_t* from = source + r * source_step;
    uint8_t* to = destination + r * destination_step;
    if constexpr (kWholeLineVectors<decltype(d)>) {
      if (whole_lines && reinterpret_cast<uintptr_t>(to) % 64 == 0) {
        DeinterleaveLines<decltype(d), kRows>(d, from, bytes, to, row_bytes);
        continue;
      }
    }
    DeinterleaveSpan<decltype(d), kRows>(d, from, 0, whole, to, row_bytes);
    DeinterleaveSpan<decltype(d16), kRows>(d16, from, whole, vectors, to, row_bytes);
    for (size_t j = vectors; j < bytes; j += kUnit) {  // rows not a multiple of 16 bytes
      for (int i = 0; i < kRows; ++i)
        std::memcpy(to + i * row_bytes + j, from + j * kRows + i * kUnit, kUnit);
    }
  }
}

constexpr size_t kBlock = 2048;  // columns per pass: 4 x 2 KiB of group bytes stay in L1

// Per group of 8 rows, byte c of a group vector collects bit 0 of rows 8g..8g+7 at column c
// (Horner: double, then or in the next row's bit; bytes never carry), so the four group vectors
// hold each column's word as 4 bytes, which a 4-way interleave puts in place. No bit-matrix
// transpose. Columns go in blocks through an L1 buffer so only 8 rows are read at a time
// (32 concurrent row streams defeat the prefetcher).
template <class D>
HWY_INLINE void GatherBits(D d, const uint8_t* source, int64_t row_bytes, size_t begin, size_t end,
                           uint8_t (*groups)[kBlock]) {
  const auto one = hn::Set(d, uint8_t{1});
  for (int g = 0; g < 4; ++g) {
    for (size_t j = begin; j < end; j += hn::Lanes(d)) {
      auto bits = hn::Zero(d);
      for (int r = 7; r >= 0; --r) {
        const auto row = hn::LoadU(d, source + (8 * g + r) * row_bytes + j);
        bits = hn::Or(hn::Add(bits, bits), hn::And(row, one));
      }
      hn::StoreU(bits, d, groups[g] + j);
    }
  }
}

template <class D>
HWY_INLINE void StoreWords(D d, uint8_t (*groups)[kBlock], size_t begin, size_t end,
                           uint8_t* destination, bool stream) {
  const auto order = BlockPairOrder(d);
  for (size_t j = begin; j < end; j += hn::Lanes(d)) {
    InterleaveStore<1, 4>(d, hn::LoadU(d, groups[0] + j), hn::LoadU(d, groups[1] + j),
                          hn::LoadU(d, groups[2] + j), hn::LoadU(d, groups[3] + j), order,
                          destination + j * 4, stream);
  }
}

// Calls kernel(unit, rows, row_bytes) with unit and rows as compile-time constants, for the unit
// sizes 1, 2, 4 by 2 or 4 rows of `columns` units; false (nothing called) for anything else.
template <class F>
bool ForUnitAndRows(int unit, int rows, int64_t columns, F&& kernel) {
  const int64_t bytes = columns * unit;
  const auto rows_of = [&](auto u) {
    const auto n = static_cast<size_t>(bytes);
    if (rows == 2) {
      kernel(u, std::integral_constant<int, 2>(), n);
    } else {
      kernel(u, std::integral_constant<int, 4>(), n);
    }
    return true;
  };
  if (rows != 2 && rows != 4) return false;
  switch (unit) {
    case 1:
      return rows_of(std::integral_constant<size_t, 1>());
    case 2:
      return rows_of(std::integral_constant<size_t, 2>());
    case 4:
      return rows_of(std::integral_constant<size_t, 4>());
    default:
      return false;
  }
}

#endif  // HWY_TARGET != HWY_SCALAR

bool InterleaveRows(const std::byte* source, int64_t source_row_bytes, int rows, int element_bytes,
                    int64_t columns, std::byte* destination, bool streaming, int64_t repeat,
                    int64_t source_step, int64_t destination_step) {
#if HWY_TARGET == HWY_SCALAR
  (void)source, (void)source_row_bytes, (void)rows, (void)element_bytes, (void)columns;
  (void)destination, (void)streaming, (void)repeat, (void)source_step, (void)destination_step;
  return false;
#else
  return ForUnitAndRows(element_bytes, rows, columns, [&](auto unit, auto row_count, size_t n) {
    InterleaveGroups<unit(), row_count()>(
        reinterpret_cast<const uint8_t*>(source), source_row_bytes, n,
        reinterpret_cast<uint8_t*>(destination), streaming, repeat, source_step, destination_step);
  });
#endif
}

bool DeinterleaveRows(const std::byte* source, std::byte* destination,
                      int64_t destination_row_bytes, int rows, int element_bytes, int64_t columns,
                      bool streaming, int64_t repeat, int64_t source_step,
                      int64_t destination_step) {
#if HWY_TARGET == HWY_SCALAR
  (void)source, (void)destination, (void)destination_row_bytes, (void)rows, (void)element_bytes;
  (void)columns, (void)streaming, (void)repeat, (void)source_step, (void)destination_step;
  return false;
#else
  // The units are loaded through pointers of their own type: they must be aligned to it (C++;
  // Highway's EMU128 target reads them as such, UBSan caught it).
  if (!aligned_to(source, element_bytes) || source_step % element_bytes != 0) return false;
  return ForUnitAndRows(element_bytes, rows, columns, [&](auto unit, auto row_count, size_t n) {
    DeinterleaveGroups<unit(), row_count()>(
        reinterpret_cast<const uint8_t*>(source), reinterpret_cast<uint8_t*>(destination),
        destination_row_bytes, n, streaming, repeat, source_step, destination_step);
  });
#endif
}

bool PackBits32Rows(const std::byte* source, int64_t source_row_bytes, int64_t columns,
                    std::byte* destination, bool streaming) {
#if HWY_TARGET == HWY_SCALAR
  (void)source, (void)source_row_bytes, (void)columns, (void)destination, (void)streaming;
  return false;
#else
  if (columns % kInterleaveRowBytes != 0) return false;
  alignas(64) uint8_t groups[4][kBlock];
  const Bytes d;
  const auto* from = reinterpret_cast<const uint8_t*>(source);
  auto* to = reinterpret_cast<uint8_t*>(destination);
  const bool stream = streaming && reinterpret_cast<uintptr_t>(to) % hn::Lanes(d) == 0;
  const auto total = static_cast<size_t>(columns);
  for (size_t block = 0; block < total; block += kBlock) {
    const size_t width = std::min(kBlock, total - block);
    const size_t whole = width - width % hn::Lanes(d);
    GatherBits(d, from + block, source_row_bytes, 0, whole, groups);
    GatherBits(Bytes16(), from + block, source_row_bytes, whole, width, groups);
    StoreWords(d, groups, 0, whole, to + block * 4, stream);
    StoreWords(Bytes16(), groups, whole, width, to + block * 4, stream);
  }
  return true;
#endif
}

const char* InterleaveTarget() {
  return hwy::TargetName(HWY_TARGET);
}

}  // namespace tessera::relayout::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "relayout/dispatch_below.h"

namespace tessera::relayout {

HWY_EXPORT(InterleaveRows);
HWY_EXPORT(DeinterleaveRows);
HWY_EXPORT(PackBits32Rows);
HWY_EXPORT(InterleaveTarget);

bool interleave_rows(const std::byte* source, int64_t source_row_bytes, int rows, int element_bytes,
                     int64_t columns, std::byte* destination, bool streaming, int64_t repeat,
                     int64_t source_step, int64_t destination_step, bool avx2) {
  return TESSERA_DISPATCH(InterleaveRows, avx2)(source, source_row_bytes, rows, element_bytes,
                                                columns, destination, streaming, repeat,
                                                source_step, destination_step);
}

bool deinterleave_rows(const std::byte* source, std::byte* destination,
                       int64_t destination_row_bytes, int rows, int element_bytes, int64_t columns,
                       bool streaming, int64_t repeat, int64_t source_step,
                       int64_t destination_step, bool avx2) {
  return TESSERA_DISPATCH(DeinterleaveRows, avx2)(source, destination, destination_row_bytes, rows,
                                                  element_bytes, columns, streaming, repeat,
                                                  source_step, destination_step);
}

bool pack_bits_32_rows(const std::byte* source, int64_t source_row_bytes, int64_t columns,
                       std::byte* destination, bool streaming, bool avx2) {
  return TESSERA_DISPATCH(PackBits32Rows, avx2)(source, source_row_bytes, columns, destination,
                                                streaming);
}

const char* interleave_target(bool avx2) {
  return TESSERA_DISPATCH(InterleaveTarget, avx2)();
}

const char* pack_bits_target(bool avx2) {
  return TESSERA_DISPATCH(InterleaveTarget, avx2)();
}

}  // namespace tessera::relayout
#endif  // HWY_ONCE
