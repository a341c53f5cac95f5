#include "relayout/host_profile.h"

#include <algorithm>
#include <atomic>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

#include <cstring>
#endif

namespace tessera::relayout {
namespace {

// Family 19h is Zen 3 and Zen 4; of the two only Zen 4 has AVX-512 (cpuid leaf 7, EBX bit 16).
// The family is the base family plus the extended family when the base is 0xF (AMD's manuals).
struct AmdFamily19h {
  bool zen3 = false;
  bool zen4 = false;
};

AmdFamily19h read_amd_family_19h() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0, &a, &b, &c, &d) == 0 || a < 7) return {};
  char vendor[13] = {};
  std::memcpy(vendor, &b, 4);
  std::memcpy(vendor + 4, &d, 4);
  std::memcpy(vendor + 8, &c, 4);
  if (std::strcmp(vendor, "AuthenticAMD") != 0) return {};
  __get_cpuid(1, &a, &b, &c, &d);
  const unsigned base = (a >> 8) & 0xF;
  const unsigned family = base == 0xF ? base + ((a >> 20) & 0xFF) : base;
  __get_cpuid_count(7, 0, &a, &b, &c, &d);
  const bool avx512f = (b >> 16) & 1;
  return {family == 0x19 && !avx512f, family == 0x19 && avx512f};
#else
  return {};
#endif
}

const AmdFamily19h& amd_family_19h() {
  static const AmdFamily19h read = read_amd_family_19h();
  return read;
}

}  // namespace

bool is_amd_zen4() {
  return amd_family_19h().zen4;
}

bool is_amd_zen3_or_zen4() {
  return amd_family_19h().zen3 || amd_family_19h().zen4;
}

namespace {
// Set when the library is loaded; a kernel called before that (no caller does) runs the AVX-512
// code, which is correct, only slower there.
std::atomic<bool> hold_to_avx2{is_amd_zen4()};
}  // namespace

bool memory_kernels_prefer_avx2() {
  return hold_to_avx2.load(std::memory_order_relaxed);
}

bool hold_memory_kernels_to_avx2(bool hold) {
  return hold_to_avx2.exchange(hold);
}

bool spread_runs_stream() {
  return is_amd_zen3_or_zen4();
}

bool runs_walk_fewer_streams() {
  return amd_family_19h().zen3;
}

bool transposes_prefetch_to_l2() {
  return is_amd_zen3_or_zen4();
}

int64_t transpose_rows_here(int64_t target_rows) {
  return amd_family_19h().zen3 ? kZen3TransposeRows : target_rows;
}

int64_t realigned_block_rows(int64_t band_rows) {
  return is_amd_zen4() ? std::max<int64_t>(64, band_rows) : band_rows;
}

}  // namespace tessera::relayout
