// HWY_DYNAMIC_DISPATCH that can be held to AVX2, for kernels that run faster from their AVX2 code
// on some AVX-512 hosts (host_profile.h). Include after hwy/highway.h, in a foreach_target file's
// HWY_ONCE part: the dispatch table's layout is that translation unit's.
#pragma once

#include <hwy/highway.h>

#include <cstddef>
#include <cstdint>

namespace tessera::relayout {

// The HWY_EXPORT table entry to call: with `at_most_avx2`, the best x86 SIMD target this CPU
// supports that is AVX2 or below (x86 targets are bits, lower ones better); otherwise, or when it
// supports none of those (a test that leaves only AVX3 on), HWY_DYNAMIC_DISPATCH's own choice.
inline std::size_t dispatch_index(bool at_most_avx2) {
  const int64_t narrow = hwy::SupportedTargets() & (HWY_AVX2 | HWY_SSE4 | HWY_SSSE3);
  if (!at_most_avx2 || narrow == 0) return hwy::GetChosenTarget().GetIndex();
  const int64_t chosen = HWY_CHOSEN_TARGET_SHIFT(narrow) | HWY_CHOSEN_TARGET_MASK_SCALAR;
  return hwy::Num0BitsBelowLS1Bit_Nonzero64(
      static_cast<uint64_t>(chosen & HWY_CHOSEN_TARGET_MASK_TARGETS));
}

}  // namespace tessera::relayout

// HWY_DYNAMIC_DISPATCH(FUNC), or FUNC's AVX2 (or lower) version when `at_most_avx2`.
#define TESSERA_DISPATCH(FUNC, at_most_avx2) \
  (*(HWY_DISPATCH_TABLE(FUNC)[::tessera::relayout::dispatch_index(at_most_avx2)]))
