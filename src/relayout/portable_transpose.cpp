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

#if HWY_TARGET != HWY_SCALAR  // one lane: Transpose16x16 copies element by element
// Rows first..first+3, columns column..column+3: o_m = column + m of those rows.
template <class D, class V, class SourceRows>
HWY_INLINE void Transpose4x4(D d, const SourceRows& from, int first, int column, V& o0, V& o1,
                             V& o2, V& o3) {
  const auto row = [&](int k) {
    return hn::LoadU(d, reinterpret_cast<const float*>(from(first + k)) + column);
  };
  const V r0 = row(0), r1 = row(1), r2 = row(2), r3 = row(3);
  const V t0 = hn::InterleaveLower(d, r0, r1);  // a0 b0 a1 b1
  const V t1 = hn::InterleaveUpper(d, r0, r1);  // a2 b2 a3 b3
  const V t2 = hn::InterleaveLower(d, r2, r3);  // c0 d0 c1 d1
  const V t3 = hn::InterleaveUpper(d, r2, r3);  // c2 d2 c3 d3
  o0 = hn::ConcatLowerLower(d, t2, t0);         // a0 b0 c0 d0
  o1 = hn::ConcatUpperUpper(d, t2, t0);         // a1 b1 c1 d1
  o2 = hn::ConcatLowerLower(d, t3, t1);
  o3 = hn::ConcatUpperUpper(d, t3, t1);
}

// Destination rows column..column+3 get source rows 0..15 of those columns: four 4x4 block
// transposes, then each destination row's 64 bytes stored back to back (non-temporal halves of a
// line stored apart evict partial lines: simd_kernels.cpp). Named vectors, no arrays: SVE
// vectors are sizeless types.
template <class SourceRows, class DestinationRows>
HWY_INLINE void Transpose4Columns(const SourceRows& from, const DestinationRows& to, int column,
                                  bool stream) {
  const hn::FixedTag<float, 4> d;
  using V = hn::Vec<decltype(d)>;
  V a0, a1, a2, a3, b0, b1, b2, b3, c0, c1, c2, c3, e0, e1, e2, e3;
  Transpose4x4(d, from, 0, column, a0, a1, a2, a3);
  Transpose4x4(d, from, 4, column, b0, b1, b2, b3);
  Transpose4x4(d, from, 8, column, c0, c1, c2, c3);
  Transpose4x4(d, from, 12, column, e0, e1, e2, e3);
  const auto line = [&](int m, V v0, V v1, V v2, V v3) {
    auto* out = reinterpret_cast<float*>(to(column + m));
    if (stream) {
      hn::Stream(v0, d, out);
      hn::Stream(v1, d, out + 4);
      hn::Stream(v2, d, out + 8);
      hn::Stream(v3, d, out + 12);
    } else {
      hn::StoreU(v0, d, out);
      hn::StoreU(v1, d, out + 4);
      hn::StoreU(v2, d, out + 8);
      hn::StoreU(v3, d, out + 12);
    }
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
