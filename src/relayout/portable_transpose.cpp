// The 16x16 transpose of 4-byte elements written once with Highway, for every CPU the
// hand-written AVX2 kernel (simd_kernels.cpp) does not run on: aarch64 (NEON/SVE), x86 without
// AVX2. 128-bit vectors (4 floats) on every target (NEON has no wider ones), so the same code is a
// 4x4 block transpose everywhere. The AVX2 kernel's 8x8 blocks of 256-bit vectors are not ported;
// simd_kernels.cpp gives the figures for keeping it where AVX2 runs.
//
// This file is included once per target by hwy/foreach_target.h.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "relayout/portable_transpose.cpp"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include <cstring>

#include "relayout/simd_kernels.h"
#include "relayout/tile_rows.h"

HWY_BEFORE_NAMESPACE();
namespace tessera::relayout::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Destination rows column..column+3 get source rows 0..15 of those columns: four 4x4 block
// transposes (two interleave levels), then each destination row's 64 bytes stored back to back
// (non-temporal halves of a line stored apart evict partial lines: simd_kernels.cpp).
#if HWY_TARGET != HWY_SCALAR
template <class SourceRows, class DestinationRows>
HWY_INLINE void Transpose4Columns(const SourceRows& from, const DestinationRows& to, int column,
                                  bool stream) {
  const hn::FixedTag<float, 4> d;
  hn::Vec<decltype(d)> out[4][4];  // [block of 4 source rows][destination row]
  for (int block = 0; block < 4; ++block) {
    const auto row = [&](int k) {
      return hn::LoadU(d, reinterpret_cast<const float*>(from(4 * block + k)) + column);
    };
    const auto r0 = row(0), r1 = row(1), r2 = row(2), r3 = row(3);
    const auto t0 = hn::InterleaveLower(d, r0, r1);   // a0 b0 a1 b1
    const auto t1 = hn::InterleaveUpper(d, r0, r1);   // a2 b2 a3 b3
    const auto t2 = hn::InterleaveLower(d, r2, r3);   // c0 d0 c1 d1
    const auto t3 = hn::InterleaveUpper(d, r2, r3);   // c2 d2 c3 d3
    out[block][0] = hn::ConcatLowerLower(d, t2, t0);  // a0 b0 c0 d0
    out[block][1] = hn::ConcatUpperUpper(d, t2, t0);  // a1 b1 c1 d1
    out[block][2] = hn::ConcatLowerLower(d, t3, t1);
    out[block][3] = hn::ConcatUpperUpper(d, t3, t1);
  }
  for (int m = 0; m < 4; ++m) {
    auto* line = reinterpret_cast<float*>(to(column + m));
    for (int block = 0; block < 4; ++block) {
      if (stream) {
        hn::Stream(out[block][m], d, line + 4 * block);
      } else {
        hn::StoreU(out[block][m], d, line + 4 * block);
      }
    }
  }
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
  const bool stream = streaming && to.aligned(16);
  for (int column = 0; column < 16; column += 4) Transpose4Columns(from, to, column, stream);
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

const char* TransposeTarget() {
  return hwy::TargetName(HWY_TARGET);
}

}  // namespace tessera::relayout::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::relayout {

HWY_EXPORT(TransposeStrided);
HWY_EXPORT(TransposeListed);
HWY_EXPORT(TransposeTarget);

void portable_transpose_16x16_f32(const std::byte* source, int64_t source_stride,
                                  int64_t source_group, std::byte* destination,
                                  int64_t destination_stride, int64_t destination_group,
                                  bool streaming) {
  HWY_DYNAMIC_DISPATCH(TransposeStrided)
  (source, source_stride, source_group, destination, destination_stride, destination_group,
   streaming);
}

void portable_transpose_16x16_f32(const std::byte* const* source_rows,
                                  std::byte* const* destination_rows, bool streaming) {
  HWY_DYNAMIC_DISPATCH(TransposeListed)(source_rows, destination_rows, streaming);
}

const char* portable_transpose_target() {
  return HWY_DYNAMIC_DISPATCH(TransposeTarget)();
}

}  // namespace tessera::relayout
#endif  // HWY_ONCE
