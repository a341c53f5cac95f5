// What the benchmarks share: the thread count, huge-page buffers, the engine's worker pool for the
// baselines, and rates from wall-clock time (docs/performance.md, "Method").
#pragma once

#include <benchmark/benchmark.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <span>

// The engine's worker pool (internal: src/ is on tessera_bench's include path).
#include "relayout/worker_pool.h"

namespace tessera::bench {

// 2, or TESSERA_BENCH_THREADS: for tessera, the copies and the peers alike.
inline int bench_threads() {
  const char* text = std::getenv("TESSERA_BENCH_THREADS");
  return text != nullptr && std::atoi(text) > 0 ? std::atoi(text) : 2;
}

// Bytes past a 2 MiB boundary where the benchmarks' buffers start: 0, or TESSERA_BENCH_OFFSET
// (16: where a large NumPy array usually starts, docs/performance.md, "Method").
inline std::size_t bench_offset() {
  const char* text = std::getenv("TESSERA_BENCH_OFFSET");
  return text != nullptr && std::atoi(text) > 0 ? static_cast<std::size_t>(std::atoi(text)) : 0;
}

// A huge-page backed, pre-faulted buffer (docs/performance.md, "Method": first touch is slow),
// starting bench_offset() bytes past a 2 MiB boundary.
struct HugeBuffer {
  explicit HugeBuffer(std::size_t bytes) : size(bytes) {
    constexpr std::size_t kHuge = std::size_t{2} << 20;
    const std::size_t offset = bench_offset();
    const std::size_t rounded = (bytes + offset + kHuge - 1) / kHuge * kHuge;
    base = static_cast<std::byte*>(std::aligned_alloc(kHuge, rounded));
    if (base == nullptr) throw std::bad_alloc();
    madvise(base, rounded, MADV_HUGEPAGE);
    std::memset(base, 0, rounded);
    data = base + offset;
  }
  ~HugeBuffer() { std::free(base); }
  HugeBuffer(const HugeBuffer&) = delete;
  HugeBuffer& operator=(const HugeBuffer&) = delete;
  std::span<std::byte> span() const { return {data, size}; }
  std::byte* base;
  std::byte* data;
  std::size_t size;
};

// Runs body(begin, end) over [0, n) in about 64 pieces (cut at multiples of `align`) on the same
// worker pool as the relayout engine, so that the baselines pay no more for threads than it does.
template <class F>
void parallel_for(int64_t n, int64_t align, F&& body) {
  const int64_t piece = std::max<int64_t>(align, (n + 64 * align - 1) / (64 * align) * align);
  relayout::for_each_piece(bench_threads() - 1, (n + piece - 1) / piece,
                           [&](int64_t i) { body(i * piece, std::min(n, (i + 1) * piece)); });
}

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// bytes_per_second from the wall-clock seconds the timed iterations took (Google Benchmark's own
// rates use the main thread's CPU time, which misses the workers).
inline void report_bytes(benchmark::State& state, int64_t bytes, double seconds) {
  state.counters["bytes_per_second"] = benchmark::Counter(static_cast<double>(state.iterations()) *
                                                          static_cast<double>(bytes) / seconds);
}

}  // namespace tessera::bench
