// AVX-512 kernels compiled for that target only and called after a run-time CPU check, so the
// library itself is built for the baseline x86-64 and runs anywhere.
#include "relayout/simd_kernels.h"

#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// GCC 12's AVX-512 headers read _mm512_undefined_*() values, which -Wuninitialized flags
// inside the intrinsics (not in our code).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#define TESSERA_X86 1
#define TESSERA_AVX512 __attribute__((target("avx512f,avx512bw")))
#define TESSERA_AVX512_VBMI __attribute__((target("avx512f,avx512bw,avx512vbmi")))
#endif

namespace tessera::relayout {

#ifdef TESSERA_X86

namespace {

bool has_vbmi() {
  static const bool yes = __builtin_cpu_supports("avx512vbmi");
  return yes;
}

// Index vectors that interleave two registers of `unit`-byte elements: output k takes element
// k/2 (+ half) of a (k even) or b (k odd); permutex2var numbers b's elements after a's.
template <typename T, int kCount>
struct InterleaveIndex {
  alignas(64) T low[kCount];
  alignas(64) T high[kCount];
  constexpr InterleaveIndex() : low{}, high{} {
    for (int k = 0; k < kCount; ++k) {
      low[k] = static_cast<T>((k & 1 ? kCount : 0) + k / 2);
      high[k] = static_cast<T>((k & 1 ? kCount : 0) + kCount / 2 + k / 2);
    }
  }
};

constexpr InterleaveIndex<uint8_t, 64> kInterleave8;
constexpr InterleaveIndex<uint16_t, 32> kInterleave16;
constexpr InterleaveIndex<uint32_t, 16> kInterleave32;

TESSERA_AVX512_VBMI void interleave(__m512i a, __m512i b, int unit, __m512i& low, __m512i& high) {
  if (unit == 1) {
    low = _mm512_permutex2var_epi8(a, _mm512_load_si512(kInterleave8.low), b);
    high = _mm512_permutex2var_epi8(a, _mm512_load_si512(kInterleave8.high), b);
  } else if (unit == 2) {
    low = _mm512_permutex2var_epi16(a, _mm512_load_si512(kInterleave16.low), b);
    high = _mm512_permutex2var_epi16(a, _mm512_load_si512(kInterleave16.high), b);
  } else {
    low = _mm512_permutex2var_epi32(a, _mm512_load_si512(kInterleave32.low), b);
    high = _mm512_permutex2var_epi32(a, _mm512_load_si512(kInterleave32.high), b);
  }
}

TESSERA_AVX512 void store(std::byte* to, __m512i v, bool streaming) {
  if (streaming && (reinterpret_cast<uintptr_t>(to) & 63) == 0) {
    _mm512_stream_si512(reinterpret_cast<__m512i*>(to), v);
  } else {
    _mm512_storeu_si512(to, v);
  }
}

TESSERA_AVX512_VBMI void interleave_avx512(const std::byte* source, int64_t row_bytes, int rows,
                                           int unit, int64_t bytes_per_row, std::byte* destination,
                                           bool streaming) {
  for (int64_t j = 0; j < bytes_per_row; j += 64) {
    const __m512i r0 = _mm512_loadu_si512(source + j);
    const __m512i r1 = _mm512_loadu_si512(source + row_bytes + j);
    __m512i p_low, p_high;
    interleave(r0, r1, unit, p_low, p_high);
    std::byte* out = destination + j * rows;
    if (rows == 2) {
      store(out, p_low, streaming);
      store(out + 64, p_high, streaming);
      continue;
    }
    const __m512i r2 = _mm512_loadu_si512(source + 2 * row_bytes + j);
    const __m512i r3 = _mm512_loadu_si512(source + 3 * row_bytes + j);
    __m512i q_low, q_high, o0, o1, o2, o3;
    interleave(r2, r3, unit, q_low, q_high);
    interleave(p_low, q_low, 2 * unit, o0, o1);
    interleave(p_high, q_high, 2 * unit, o2, o3);
    store(out, o0, streaming);
    store(out + 64, o1, streaming);
    store(out + 128, o2, streaming);
    store(out + 192, o3, streaming);
  }
}

TESSERA_AVX512 void stream_copy_avx512(std::byte* destination, const std::byte* source,
                                       std::size_t bytes) {
  const std::size_t head = (64 - (reinterpret_cast<uintptr_t>(destination) & 63)) & 63;
  if (head >= bytes) {
    std::memcpy(destination, source, bytes);
    return;
  }
  std::memcpy(destination, source, head);
  std::size_t i = head;
  for (; i + 256 <= bytes; i += 256) {
    const __m512i a = _mm512_loadu_si512(source + i);
    const __m512i b = _mm512_loadu_si512(source + i + 64);
    const __m512i c = _mm512_loadu_si512(source + i + 128);
    const __m512i d = _mm512_loadu_si512(source + i + 192);
    _mm512_stream_si512(reinterpret_cast<__m512i*>(destination + i), a);
    _mm512_stream_si512(reinterpret_cast<__m512i*>(destination + i + 64), b);
    _mm512_stream_si512(reinterpret_cast<__m512i*>(destination + i + 128), c);
    _mm512_stream_si512(reinterpret_cast<__m512i*>(destination + i + 192), d);
  }
  for (; i + 64 <= bytes; i += 64) {
    _mm512_stream_si512(reinterpret_cast<__m512i*>(destination + i),
                        _mm512_loadu_si512(source + i));
  }
  std::memcpy(destination + i, source + i, bytes - i);
}

TESSERA_AVX512 void transpose_16x16_avx512(const float* src, int64_t source_row, float* dst,
                                           int64_t destination_row, bool streaming) {
  __m512 t[16], u[16];
  for (int k = 0; k < 16; k += 2) {
    const __m512 a = _mm512_loadu_ps(src + k * source_row);
    const __m512 b = _mm512_loadu_ps(src + (k + 1) * source_row);
    t[k] = _mm512_unpacklo_ps(a, b);
    t[k + 1] = _mm512_unpackhi_ps(a, b);
  }
  for (int g = 0; g < 16; g += 4) {  // rows g..g+3: u[g+m] holds column 4L+m of lane L
    const __m512d t0 = _mm512_castps_pd(t[g]), t1 = _mm512_castps_pd(t[g + 1]);
    const __m512d t2 = _mm512_castps_pd(t[g + 2]), t3 = _mm512_castps_pd(t[g + 3]);
    u[g] = _mm512_castpd_ps(_mm512_unpacklo_pd(t0, t2));
    u[g + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(t0, t2));
    u[g + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(t1, t3));
    u[g + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(t1, t3));
  }
  const bool aligned =
      streaming && (reinterpret_cast<uintptr_t>(dst) & 63) == 0 && (destination_row * 4) % 64 == 0;
  for (int m = 0; m < 4; ++m) {
    const __m512 v = _mm512_shuffle_f32x4(u[m], u[4 + m], 0x88);
    const __m512 w = _mm512_shuffle_f32x4(u[m], u[4 + m], 0xDD);
    const __m512 v2 = _mm512_shuffle_f32x4(u[8 + m], u[12 + m], 0x88);
    const __m512 w2 = _mm512_shuffle_f32x4(u[8 + m], u[12 + m], 0xDD);
    const __m512 rows[4] = {_mm512_shuffle_f32x4(v, v2, 0x88), _mm512_shuffle_f32x4(w, w2, 0x88),
                            _mm512_shuffle_f32x4(v, v2, 0xDD), _mm512_shuffle_f32x4(w, w2, 0xDD)};
    for (int lane = 0; lane < 4; ++lane) {
      float* out = dst + (4 * lane + m) * destination_row;
      if (aligned) {
        _mm512_stream_ps(out, rows[lane]);
      } else {
        _mm512_storeu_ps(out, rows[lane]);
      }
    }
  }
}

// In-place transpose of a 32x32 bit matrix, bit c of a[r] = element (r, c).
inline void transpose_bits_32(uint32_t* a) {
  uint32_t mask = 0x0000FFFFu;
  for (int j = 16; j != 0; j >>= 1, mask ^= mask << j) {
    for (int k = 0; k < 32; k = (k + j + 1) & ~j) {
      const uint32_t t = ((a[k] >> j) ^ a[k + j]) & mask;
      a[k] ^= t << j;
      a[k + j] ^= t;
    }
  }
}

TESSERA_AVX512 void pack_bits_avx512(const std::byte* source, int64_t row_bytes, int64_t columns,
                                     std::byte* destination) {
  const __m512i one = _mm512_set1_epi8(1);
  for (int64_t j = 0; j < columns; j += 64) {
    uint32_t low[32], high[32];
    for (int i = 0; i < 32; ++i) {
      const uint64_t m = _mm512_test_epi8_mask(_mm512_loadu_si512(source + i * row_bytes + j), one);
      low[i] = static_cast<uint32_t>(m);
      high[i] = static_cast<uint32_t>(m >> 32);
    }
    transpose_bits_32(low);
    transpose_bits_32(high);
    std::memcpy(destination + j * 4, low, sizeof low);
    std::memcpy(destination + j * 4 + 128, high, sizeof high);
  }
}

}  // namespace

bool has_avx512() {
  static const bool yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  return yes;
}

void stream_copy(std::byte* destination, const std::byte* source, std::size_t bytes) {
  if (has_avx512()) {
    stream_copy_avx512(destination, source, bytes);
  } else {
    std::memcpy(destination, source, bytes);
  }
}

void store_fence() {
  _mm_sfence();
}

void transpose_16x16_f32(const std::byte* source, int64_t source_row, std::byte* destination,
                         int64_t destination_row, bool streaming) {
  transpose_16x16_avx512(reinterpret_cast<const float*>(source), source_row,
                         reinterpret_cast<float*>(destination), destination_row, streaming);
}

bool interleave_rows(const std::byte* source, int64_t source_row_bytes, int rows, int element_bytes,
                     int64_t columns, std::byte* destination, bool streaming) {
  const int64_t bytes = columns * element_bytes;
  if (!has_avx512() || (element_bytes == 1 && !has_vbmi()) || bytes % 64 != 0 ||
      (rows != 2 && rows != 4)) {
    return false;
  }
  interleave_avx512(source, source_row_bytes, rows, element_bytes, bytes, destination, streaming);
  return true;
}

bool pack_bits_32_rows(const std::byte* source, int64_t source_row_bytes, int64_t columns,
                       std::byte* destination) {
  if (!has_avx512() || columns % 64 != 0) return false;
  pack_bits_avx512(source, source_row_bytes, columns, destination);
  return true;
}

#else  // no x86 SIMD: every caller takes its scalar path

bool has_avx512() {
  return false;
}
void stream_copy(std::byte* destination, const std::byte* source, std::size_t bytes) {
  std::memcpy(destination, source, bytes);
}
void store_fence() {}
void transpose_16x16_f32(const std::byte*, int64_t, std::byte*, int64_t, bool) {}
bool interleave_rows(const std::byte*, int64_t, int, int, int64_t, std::byte*, bool) {
  return false;
}
bool pack_bits_32_rows(const std::byte*, int64_t, int64_t, std::byte*) {
  return false;
}

#endif

}  // namespace tessera::relayout
