// Hand-written AVX2 kernels (interleaves, bit packing) compiled for that target only
// and called after a run-time CPU check, so the library itself is built for the baseline x86-64
// and runs anywhere; on other CPUs and architectures (aarch64) these functions report false or
// are not called, and the scalar loops in copy_kernels.cpp take over. The contiguous streaming
// copies and the 16x16 transposes are portable Highway code (streaming_kernels.cpp,
// portable_transpose.cpp). These stay hand-written AVX2: they were tuned and measured here
// (BENCHMARKS.md) and have not been ported to Highway yet.
#include "relayout/simd_kernels.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// GCC 12's AVX-512 headers read _mm512_undefined_*() values, which -Wuninitialized flags
// inside the intrinsics (not in our code).
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#define TESSERA_X86 1
#define TESSERA_AVX2 __attribute__((target("avx2")))
#endif

namespace tessera::relayout {

#ifdef TESSERA_X86

namespace {

// Interleaves two registers of `unit`-byte elements: low = a0 b0 a1 b1 ... over the first 16
// bytes of each, high over the last 16. AVX2 unpacks work within 128-bit lanes, so the 64-bit
// quarters are first put in the order (0, 2, 1, 3).
TESSERA_AVX2 void interleave(__m256i a, __m256i b, int unit, __m256i& low, __m256i& high) {
  a = _mm256_permute4x64_epi64(a, 0xD8);
  b = _mm256_permute4x64_epi64(b, 0xD8);
  if (unit == 1) {
    low = _mm256_unpacklo_epi8(a, b);
    high = _mm256_unpackhi_epi8(a, b);
  } else if (unit == 2) {
    low = _mm256_unpacklo_epi16(a, b);
    high = _mm256_unpackhi_epi16(a, b);
  } else {
    low = _mm256_unpacklo_epi32(a, b);
    high = _mm256_unpackhi_epi32(a, b);
  }
}

TESSERA_AVX2 void store(std::byte* to, __m256i v, bool streaming) {
  if (streaming && (reinterpret_cast<uintptr_t>(to) & 31) == 0) {
    _mm256_stream_si256(reinterpret_cast<__m256i*>(to), v);
  } else {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(to), v);
  }
}

TESSERA_AVX2 __m256i load(const std::byte* from) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(from));
}

TESSERA_AVX2 void interleave_avx2(const std::byte* source, int64_t row_bytes, int rows, int unit,
                                  int64_t bytes_per_row, std::byte* destination, bool streaming) {
  for (int64_t j = 0; j < bytes_per_row; j += 32) {
    __m256i p_low, p_high;
    interleave(load(source + j), load(source + row_bytes + j), unit, p_low, p_high);
    std::byte* out = destination + j * rows;
    if (rows == 2) {
      store(out, p_low, streaming);
      store(out + 32, p_high, streaming);
      continue;
    }
    __m256i q_low, q_high, o0, o1, o2, o3;
    interleave(load(source + 2 * row_bytes + j), load(source + 3 * row_bytes + j), unit, q_low,
               q_high);
    interleave(p_low, q_low, 2 * unit, o0, o1);
    interleave(p_high, q_high, 2 * unit, o2, o3);
    store(out, o0, streaming);
    store(out + 32, o1, streaming);
    store(out + 64, o2, streaming);
    store(out + 96, o3, streaming);
  }
}

// Per group of 8 rows, byte c of a group vector collects bit 0 of rows 8g..8g+7 at column c
// (Horner: double, then or in the next row's bit; bytes never carry), so the four group vectors
// hold each column's word as 4 bytes, which a 4-way interleave puts in place. No bit-matrix
// transpose. Columns go in blocks through an L1 buffer so only 8 rows are read at a time
// (32 concurrent row streams defeat the prefetcher).
TESSERA_AVX2 void pack_bits_avx2(const std::byte* source, int64_t row_bytes, int64_t columns,
                                 std::byte* destination, bool streaming) {
  constexpr int64_t kBlock = 2048;
  alignas(32) std::byte groups[4][kBlock];
  const __m256i one = _mm256_set1_epi8(1);
  for (int64_t jb = 0; jb < columns; jb += kBlock) {
    const int64_t width = std::min(kBlock, columns - jb);
    for (int g = 0; g < 4; ++g) {
      for (int64_t j = 0; j < width; j += 32) {
        __m256i bits = _mm256_setzero_si256();
        for (int r = 7; r >= 0; --r) {
          const __m256i row = load(source + (8 * g + r) * row_bytes + jb + j);
          bits = _mm256_or_si256(_mm256_add_epi8(bits, bits), _mm256_and_si256(row, one));
        }
        _mm256_store_si256(reinterpret_cast<__m256i*>(groups[g] + j), bits);
      }
    }
    for (int64_t j = 0; j < width; j += 32) {
      __m256i p_low, p_high, q_low, q_high, o0, o1, o2, o3;
      interleave(load(groups[0] + j), load(groups[1] + j), 1, p_low, p_high);
      interleave(load(groups[2] + j), load(groups[3] + j), 1, q_low, q_high);
      interleave(p_low, q_low, 2, o0, o1);
      interleave(p_high, q_high, 2, o2, o3);
      std::byte* out = destination + (jb + j) * 4;
      store(out, o0, streaming);
      store(out + 32, o1, streaming);
      store(out + 64, o2, streaming);
      store(out + 96, o3, streaming);
    }
  }
}

}  // namespace

bool has_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}

bool use_handwritten_avx2() {
  static const bool yes = std::getenv("TESSERA_HANDWRITTEN_AVX2") != nullptr && has_avx2();
  return yes;
}

bool interleave_rows_avx2(const std::byte* source, int64_t source_row_bytes, int rows,
                          int element_bytes, int64_t columns, std::byte* destination,
                          bool streaming, int64_t repeat, int64_t source_step,
                          int64_t destination_step) {
  const int64_t bytes = columns * element_bytes;
  if (!has_avx2() || bytes % 32 != 0 || (rows != 2 && rows != 4)) return false;
  for (int64_t r = 0; r < repeat; ++r) {
    interleave_avx2(source + r * source_step, source_row_bytes, rows, element_bytes, bytes,
                    destination + r * destination_step, streaming);
  }
  return true;
}

bool pack_bits_32_rows_avx2(const std::byte* source, int64_t source_row_bytes, int64_t columns,
                            std::byte* destination, bool streaming) {
  if (!has_avx2() || columns % 32 != 0) return false;
  pack_bits_avx2(source, source_row_bytes, columns, destination, streaming);
  return true;
}

#else  // no x86 SIMD: every caller takes its scalar path

bool has_avx2() {
  return false;
}
bool use_handwritten_avx2() {
  return false;
}
bool interleave_rows_avx2(const std::byte*, int64_t, int, int, int64_t, std::byte*, bool, int64_t,
                          int64_t, int64_t) {
  return false;
}
bool pack_bits_32_rows_avx2(const std::byte*, int64_t, int64_t, std::byte*, bool) {
  return false;
}

#endif

}  // namespace tessera::relayout
