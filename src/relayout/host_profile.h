// What this CPU prefers where its SIMD target alone does not tell: two hosts with the same
// Highway target (AVX3) can want different code. Read once from cpuid; each rule cites the
// measurement it comes from.
#pragma once

#include <cstdint>

namespace tessera::relayout {

// AMD Zen 4 (x86 family 19h with AVX-512), which executes 512-bit vectors as two 256-bit halves:
// its streaming copies and its staged f32 transpose ran faster from their AVX2 code than from
// their AVX-512 code (EPYC family 19h model 11h, 1 thread, both in one process, medians of 7-11,
// BENCHMARKS.md "Issue 13 on Zen 4"): a 64 MiB streaming copy 38.2-41.8 -> 42.0-46.3 GB/s,
// f32[4096,4096] -> {0,1} 18.3 -> 22.6 GB/s. So did the (2,1)/(4,1) packings, by less
// (BENCHMARKS.md, "Issue 13: unpacking in whole lines"; ratio to a streaming copy, AVX-512 ->
// AVX2, 1 thread, medians of 5-9): bf16 -> T(8,128)(2,1) 0.82-0.88 -> 0.88-0.92, s8 ->
// T(32,128)(4,1) 0.73-0.81 -> 0.75-0.83; their unpacking alike either way. Its other kernels
// measured alike either way or slower from AVX2 (T(8,128) -> Fortran order 19.6 -> 21.6,
// Fortran order -> T(8,128) 18.4 -> 17.1, pred's bit packing 1.01 -> 0.86-0.90) and keep AVX-512.
// 512-bit streaming stores split in two halves did not help (44.5 against 45.5). False on every
// other CPU: Zen 5 and Intel's run 512 bits at once.
bool is_amd_zen4();

// AMD Zen 3 or Zen 4 (x86 family 19h, with or without AVX-512).
bool is_amd_zen3_or_zen4();

// Whether those kernels run their AVX2 code: is_amd_zen4() unless switched. Read on every kernel
// call (a relaxed atomic load).
bool memory_kernels_prefer_avx2();

// Switches that rule and returns what it was, so it can be put back: tests that must run each
// Highway target's own code (highway_targets.h), and A/B measurements in one process.
bool hold_memory_kernels_to_avx2(bool hold);

// Whether contiguous runs written over a destination larger than three quarters of the
// last-level cache stream once each thread writes 4 MiB, even though the bytes written would fit
// the cache (relayout_plan.cpp's rule, which holds on Zen 5). True on AMD Zen 3 and Zen 4, where
// plain stores spread over a BM1684 image (64 NPUs 512 KiB apart, so each run's lines share cache
// sets with 63 others) ran far below a copy: f32[N,256,56,56] into the 32 MiB image, GB/s of
// data, medians of 7-9, plain -> streamed. Zen 4 (BENCHMARKS.md, "Issue 13: unpacking in whole
// lines"): N = 4 (12.25 MiB), 1 thread 11.9 -> 24.9 (a streaming copy 25.6), 2 threads 22.0 ->
// 26.9; N = 2, 1 thread 20.8 -> 27.6; below 4 MiB a thread they measured alike or plain ahead
// (N = 2, 2 threads: 39.3 against 27.4). Zen 3 (EPYC family 19h model 1, BENCHMARKS.md, "Issue
// 13 on Zen 3 again"): N = 4, 1 thread 7.6-8.5 -> 10.3-13.5 (a streaming copy 12.0-15.3),
// 2 threads 11.1-11.8 -> 12.2-17.5.
bool spread_runs_stream();

// Whether a walk over contiguous runs follows the side that leaves the other fewer streams open
// (copy_kernels.cpp, order_runs_walk) instead of the source's order: true on AMD
// Zen 3 only. Row-major -> T(8,128) then writes whole tiles in turn with 8 source rows open, where
// the source's order reads one row at a time with 32 tiles open for writing. Ratio to BM_Copy,
// 1 thread, source order -> fewer streams: Zen 3 (EPYC family 19h model 1, same-process A/B,
// BENCHMARKS.md "Runs walked with fewer streams open") f32[4096,4096] 0.88-0.99 -> 0.96-1.09,
// f32[16384,16384] 0.94-1.06 -> 1.09-1.17; Zen 5 (EPYC family 1Ah model 2, the benchmark,
// two rounds, BENCHMARKS.md "Issue 13 on Zen 5 again") f32[4096,4096] 1.07-1.22 -> 0.73-0.75,
// f32[16384,16384] 0.99-1.09 -> 0.67-0.70, f32[4000,4000] 1.01-1.03 -> 0.66-0.69: Zen 5 reads 8
// streams far below one (8 rows side by side 21-28 GB/s, one 40-43, same section as above).
// Zen 4 and other hosts keep the source's order, which they were measured with.
bool runs_walk_fewer_streams();

// Whether the transposes prefetch their next source lines into the L2 only (PrefetchInto::kL2,
// simd_kernels.h) rather than into the L1: true on AMD Zen 3 and Zen 4. On Zen 4, L1 requests held
// the L1's few miss buffers that the demand loads need. Harness, 1 thread, one line from each of
// 128 rows in turn, 8 lines ahead, written out sequentially: 28 GB/s into the L1, 38-40 into the
// L2, 42 for a copy; the benchmark, same binary, ratio to BM_Copy, L1 -> L2 (BENCHMARKS.md,
// "Issue 13: prefetches into the L2"): f32_transpose 0.48-0.55 -> 0.68-0.71, T(8,128) ->
// transposed 0.54-0.56 -> 0.80-0.86. Zen 3 has run with the L2 hint since (not compared). Zen 5
// wants the L1: the issue's benchmark, 1 thread, two rounds each, L2 -> L1 (BENCHMARKS.md "Issue 13
// on Zen 5 again"): f32_transpose 0.72-0.75 -> 0.81-0.84, its 1 GiB variant 0.32-0.39 -> 0.40-0.43
// (three rounds), T(8,128) -> transposed 0.89-0.90 -> 0.97-1.06, 1 GiB 0.87-0.88 -> 0.97-1.05;
// and earlier there, for the staged transpose, L1 0.79 against L2 0.66-0.74 ("row gaps, fewer
// read streams"). Other hosts keep the L1 hint the transposes were first measured with.
bool transposes_prefetch_to_l2();

// Source rows a transpose reads at a time on this host, given its SIMD target's choice
// (portable_transpose.cpp: 128 on AVX2, 32 on AVX-512): 32 on AMD Zen 3. There, 128 rows 16 or
// 64 KiB apart put 32 or 128 lines in each 8-way L2 set, so prefetched lines left the L2 before
// their tiles were read; 32 rows also halve the read streams. EPYC family 19h model 1, 1 thread,
// ratio to a streaming copy in the same process, medians of 5 over 2-4 rounds (BENCHMARKS.md,
// "Issue 13 on Zen 3 again"), 128 -> 32 rows: f32[16384,16384] -> {0,1} 0.31-0.41 -> 0.46-0.52,
// f32[4096,4096] -> {0,1} 0.50-0.56 -> 0.49-0.55; T(8,128) -> transposed f32[4096,4096]
// 0.68-0.77 -> 0.75-0.83, f32[16384,16384] 0.72-0.78 -> 0.71-0.86; NumPy's Fortran order ->
// T(8,128), f32[8192,8192] 16 bytes into a line, 0.33-0.39 -> 0.60-0.67 (C order 0.91-1.0);
// T(8,128) -> Fortran order alike (0.39-0.51 against 0.41-0.54). 2 threads, f32[16384,16384]
// -> {0,1}: 0.62-0.64 -> 0.74-0.84 of a 1-thread copy. 16 or 64 rows were slower (0.32-0.54).
int64_t transpose_rows_here(int64_t target_rows);
inline constexpr int64_t kZen3TransposeRows = 32;  // the kernels instantiate their band for it

// Source rows per block of the transposes into destinations whose rows all start inside a line
// (NumPy's Fortran-order arrays: transpose_box.cpp's realigned blocks), given the target's
// `band_rows` (transpose_band_rows()): at least 64 on Zen 4, where 32 left them well behind the
// rest. T(8,128) -> Fortran order 16 bytes into a line, 1 thread, same-process medians
// (BENCHMARKS.md, "Issue 13: prefetches into the L2"): f32[8192,8192] 13.3 -> 16.2 GB/s,
// f32[16384,16384] 11.8 -> 14.2 (128 rows: 15.8, 12.9). T(8,128) -> transposed, line-aligned,
// keeps band_rows there (64 rows: 0.65-0.71 of BM_Copy, against 0.87-0.95), as do other hosts.
int64_t realigned_block_rows(int64_t band_rows);

}  // namespace tessera::relayout
