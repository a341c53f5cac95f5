// HWY_DYNAMIC_DISPATCH that can be held to AVX2, for kernels that run faster from their AVX2 code
// on some AVX-512 hosts (a variant's simd, kernel_variant.h). Include after hwy/highway.h, in a
// foreach_target file's HWY_ONCE part: the dispatch table's layout is that translation unit's.
#pragma once

#include <hwy/highway.h>

#include <bit>
#include <cstddef>
#include <cstdint>

namespace tessera::relayout {

// The HWY_EXPORT table entry to call: HWY_DYNAMIC_DISPATCH's own, or with `at_most_avx2` the AVX2
// entry in its place when the chosen one is better than AVX2 (x86 targets are bits, lower ones
// better). Cheap enough for a call per run once Highway's choice is made: hwy::SupportedTargets()
// runs cpuid on every call, so it is only called to make that choice, as Highway's first-call
// entry does; a CPU with AVX-512 has AVX2.
inline std::size_t dispatch_index(bool at_most_avx2) {
  hwy::ChosenTarget& target = hwy::GetChosenTarget();
  if (!target.IsInitialized()) target.Update(hwy::SupportedTargets());  // as entry 0 would
  const std::size_t chosen = target.GetIndex();
  constexpr uint64_t kAvx2Bit =
      static_cast<uint64_t>(HWY_CHOSEN_TARGET_SHIFT(HWY_AVX2) & HWY_CHOSEN_TARGET_MASK_TARGETS);
  if constexpr (kAvx2Bit == 0) {  // no AVX2 in this build (not x86)
    (void)at_most_avx2;
    return chosen;
  } else {
    constexpr auto kAvx2 = static_cast<std::size_t>(std::countr_zero(kAvx2Bit));
    return at_most_avx2 && chosen < kAvx2 ? kAvx2 : chosen;
  }
}

}  // namespace tessera::relayout

// HWY_DYNAMIC_DISPATCH(FUNC), or FUNC's AVX2 version in place of a wider one when `at_most_avx2`.
#define TESSERA_DISPATCH(FUNC, at_most_avx2) \
  (*(HWY_DISPATCH_TABLE(FUNC)[::tessera::relayout::dispatch_index(at_most_avx2)]))
