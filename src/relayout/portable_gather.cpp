// Rows read with a stride, written contiguously: reversed views (NumPy's x[:, ::-1]) and stepped
// ones (x[:, ::2]) as strided sources of a conversion. Written once with Highway and dispatched
// at run time like the other kernels (simd_kernels.h): for 2-, 4- and 8-byte elements, Reverse of
// whole vectors for a stride of -1 and ConcatEven of two for a stride of 2 (NumPy's x[:, ::2]:
// two loads and a shuffle beat AVX2's gather instruction,
// docs/notes/2026-11-24-strided-views-through-highway.md); GatherIndex for other strides of 4-
// and 8-byte elements.
//
// Worked example, f32, AVX2 (8 lanes), stride -1, source row ... a7 a6 a5 a4 a3 a2 a1 a0 (a0 at
// `source`): one unaligned load of the 8 elements ending at a0, reversed, is a0 a1 ... a7.
//
// This file is included once per target by hwy/foreach_target.h.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "relayout/portable_gather.cpp"
#include <hwy/cache_control.h>
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include <cstdlib>
#include <cstring>
#include <limits>

#include "relayout/simd_kernels.h"
#include "relayout/store_lanes-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tessera::relayout::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <typename T>
bool GatherRowOf(const T* from, int64_t stride, int64_t count, T* to, bool streaming) {
  const hn::ScalableTag<T> d;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  const bool stream =
      streaming && reinterpret_cast<uintptr_t>(to) % (hn::Lanes(d) * sizeof(T)) == 0;
  int64_t i = 0;
  // The hardware prefetcher follows rows read backwards or with steps too late on some hosts, so
  // the lines 1 KiB further on are asked for here (addresses, not pointers: they may lie outside
  // the row; a prefetch never faults). Measured on Zen 5, where 512 B-2 KiB ahead were alike:
  // docs/notes/2026-11-24-first-avx512-host.md (reversed), 2026-11-24-zen5-fewer-source-rows.md
  // (stepped).
  constexpr uintptr_t ahead = 1024;
  const auto prefetch = [](const T* at, uintptr_t offset) {
    hwy::Prefetch(reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(at) + offset));
  };
  if (stride == -1) {
    for (; i + lanes <= count; i += lanes) {
      prefetch(from - i, -ahead);
      StoreLanes(d, hn::Reverse(d, hn::LoadU(d, from - i - (lanes - 1))), to + i, stream);
    }
  } else if (stride == 2) {  // every other element: two loads and a shuffle, not a gather
    // The second load ends one element past the last one it keeps: stop while an element is
    // left after this vector, so the loads never pass the row's end (ASan caught it).
    for (; i + lanes < count; i += lanes) {
#if HWY_TARGET == HWY_SCALAR  // one lane, and no ConcatEven
      StoreLanes(d, hn::Set(d, from[2 * i]), to + i, stream);
#else
      prefetch(from + 2 * i, ahead);  // the two vectors' lines (64 bytes or less each)
      prefetch(from + 2 * i + lanes, ahead);
      const auto low = hn::LoadU(d, from + 2 * i);
      const auto high = hn::LoadU(d, from + 2 * i + lanes);
      StoreLanes(d, hn::ConcatEven(d, high, low), to + i, stream);
#endif
    }
  } else if constexpr (sizeof(T) >= 4) {
    const hn::RebindToSigned<decltype(d)> di;
    using Index = hn::TFromD<decltype(di)>;
    if (std::abs(stride) > std::numeric_limits<Index>::max() / lanes) return false;
    const auto index = hn::Mul(hn::Iota(di, 0), hn::Set(di, static_cast<Index>(stride)));
    for (; i + lanes <= count; i += lanes)
      StoreLanes(d, hn::GatherIndex(d, from + i * stride, index), to + i, stream);
  } else {
    return false;
  }
  // The last elements, through a buffer so that a streamed row gets no plain store into a line
  // still being streamed (simd_kernels.h, stream_small).
  T tail[HWY_MAX_BYTES / sizeof(T)];
  int64_t k = 0;
  for (int64_t j = i; j < count; ++j) tail[k++] = from[j * stride];
  store_small(reinterpret_cast<uint8_t*>(to + i), reinterpret_cast<const uint8_t*>(tail),
              static_cast<size_t>(k) * sizeof(T), stream);
  return true;
}

bool GatherRow(const std::byte* source, int64_t stride, int element_bytes, int64_t count,
               std::byte* destination, bool streaming) {
  // Elements are read and written through pointers of their own type: both sides must be
  // aligned to it (an unaligned NumPy view stays with the element loop).
  if (!gather_row_takes(stride, element_bytes) || !aligned_to(source, element_bytes) ||
      !aligned_to(destination, element_bytes)) {
    return false;
  }
  switch (element_bytes) {
    case 2:  // 1-byte elements stay scalar: Highway 1.0 has no Reverse of 8-bit lanes
      return GatherRowOf(reinterpret_cast<const uint16_t*>(source), stride, count,
                         reinterpret_cast<uint16_t*>(destination), streaming);
    case 4:
      return GatherRowOf(reinterpret_cast<const uint32_t*>(source), stride, count,
                         reinterpret_cast<uint32_t*>(destination), streaming);
    case 8:
      return GatherRowOf(reinterpret_cast<const uint64_t*>(source), stride, count,
                         reinterpret_cast<uint64_t*>(destination), streaming);
    default:
      return false;
  }
}

const char* GatherTarget() {
  return hwy::TargetName(HWY_TARGET);
}

}  // namespace tessera::relayout::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::relayout {

HWY_EXPORT(GatherRow);
HWY_EXPORT(GatherTarget);

bool gather_row(const std::byte* source, int64_t source_stride, int element_bytes, int64_t count,
                std::byte* destination, bool streaming) {
  return HWY_DYNAMIC_DISPATCH(GatherRow)(source, source_stride, element_bytes, count, destination,
                                         streaming);
}

const char* gather_target() {
  return HWY_DYNAMIC_DISPATCH(GatherTarget)();
}

}  // namespace tessera::relayout
#endif  // HWY_ONCE
