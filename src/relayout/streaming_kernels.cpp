// Contiguous copies with non-temporal stores, written once with Highway and compiled for every
// target it knows (SSE2/SSSE3/SSE4/AVX2/AVX-512 on x86, NEON/SVE on ARM); the best one the CPU
// supports is chosen at run time (HWY_DYNAMIC_DISPATCH). glibc's memcpy streams only above ~190
// MiB, so below that a copy with streaming stores beats it (docs/performance.md, "Method";
// docs/notes/2026-11-23-highway-copies-64mib-and-1gib.md).
//
// This file is included once per target by hwy/foreach_target.h.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "relayout/streaming_kernels.cpp"
#include <hwy/cache_control.h>
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include <algorithm>
#include <cstring>

#include "relayout/simd_kernels.h"

HWY_BEFORE_NAMESPACE();
namespace tessera::relayout::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Streaming stores wherever the destination allows one: stream_small for the bytes before it is
// 16-byte aligned and after the last 16-byte piece; 16-byte streams up to the vector alignment
// and after the last whole vector; in between, four loads are issued before their four
// streaming stores (whole lines).
//
// Why the 16-byte pieces: a plain store into a line whose other bytes are still in a
// write-combining buffer waits for that buffer and then reads the line back from memory. Runs
// that share lines (each 512-byte run of T(8,128) -> f32[16380,16380] starts 16-48 bytes into
// a line) or end inside one (the 496-byte runs of f32[16380,16380] -> T(8,128)) paid that on
// every run (docs/notes/2026-11-24-run-end-streaming-stores.md). Empty memcpy calls are
// skipped: two per 512-byte run cost a visible share of a conversion (same note).
inline void StreamBytes(uint8_t* HWY_RESTRICT to, const uint8_t* HWY_RESTRICT from, size_t bytes) {
  const hn::ScalableTag<uint8_t> d;
  const size_t lanes = hn::Lanes(d);
  const hn::CappedTag<uint8_t, 16> d16;
  const size_t lanes16 = hn::Lanes(d16);
  const auto misalignment = [&](size_t i, size_t alignment) {
    return reinterpret_cast<uintptr_t>(to + i) % alignment;
  };
  size_t i = 0;
  if (misalignment(0, lanes16) != 0) {
    i = std::min(bytes, lanes16 - misalignment(0, lanes16));
    stream_small(to, from, i);
  }
  for (; i + lanes16 <= bytes && misalignment(i, lanes) != 0; i += lanes16)
    hn::Stream(hn::LoadU(d16, from + i), d16, to + i);
  for (; i + 4 * lanes <= bytes; i += 4 * lanes) {
    const auto a = hn::LoadU(d, from + i);
    const auto b = hn::LoadU(d, from + i + lanes);
    const auto c = hn::LoadU(d, from + i + 2 * lanes);
    const auto e = hn::LoadU(d, from + i + 3 * lanes);
    hn::Stream(a, d, to + i);
    hn::Stream(b, d, to + i + lanes);
    hn::Stream(c, d, to + i + 2 * lanes);
    hn::Stream(e, d, to + i + 3 * lanes);
  }
  for (; i + lanes <= bytes; i += lanes) hn::Stream(hn::LoadU(d, from + i), d, to + i);
  for (; i + lanes16 <= bytes; i += lanes16) hn::Stream(hn::LoadU(d16, from + i), d16, to + i);
  stream_small(to + i, from + i, bytes - i);
}

void StreamCopy(std::byte* destination, const std::byte* source, size_t bytes) {
  StreamBytes(reinterpret_cast<uint8_t*>(destination), reinterpret_cast<const uint8_t*>(source),
              bytes);
}

void StreamRuns(std::byte* destination, int64_t destination_step, const std::byte* source,
                int64_t source_step, size_t run_bytes, int64_t count) {
  for (int64_t r = 0; r < count; ++r) {
    StreamBytes(reinterpret_cast<uint8_t*>(destination + r * destination_step),
                reinterpret_cast<const uint8_t*>(source + r * source_step), run_bytes);
  }
}

const char* StreamTarget() {
  return hwy::TargetName(HWY_TARGET);
}

}  // namespace tessera::relayout::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "relayout/dispatch_below.h"

namespace tessera::relayout {

HWY_EXPORT(StreamCopy);
HWY_EXPORT(StreamRuns);
HWY_EXPORT(StreamTarget);

void stream_copy(std::byte* destination, const std::byte* source, std::size_t bytes, bool avx2) {
  TESSERA_DISPATCH(StreamCopy, avx2)(destination, source, bytes);
}

void stream_runs(std::byte* destination, int64_t destination_step, const std::byte* source,
                 int64_t source_step, std::size_t run_bytes, int64_t count, bool avx2) {
  TESSERA_DISPATCH(StreamRuns, avx2)
  (destination, destination_step, source, source_step, run_bytes, count);
}

const char* stream_target(bool avx2) {
  return TESSERA_DISPATCH(StreamTarget, avx2)();
}

void store_fence() {
  hwy::FlushStream();
}

}  // namespace tessera::relayout
#endif  // HWY_ONCE
