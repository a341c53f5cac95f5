#pragma once

#include <cstdint>
#include <functional>

namespace tessera::relayout {

// Runs `work` on the calling thread and on up to `helpers` other threads at once, and returns when
// every call has returned. `work` must not throw, and must be safe to call several times
// concurrently: it is meant to be a loop that takes pieces of a job from a shared counter until
// none are left, so the result does not depend on how many threads took part.
//
// The helpers come from a process-wide pool of threads that outlive the call. Starting and
// joining threads per call made every call pay for them
// (docs/notes/2026-11-21-worker-pool-and-fair-copy.md), and a thread that starts late only adds to
// the caller's share: with a pool, a helper that is not running yet when the caller has taken
// every piece is simply not waited for. When the pool is busy with another call, this one starts
// threads of its own.
//
// Example: std::atomic<int> next{0};
//          run_in_parallel(1, [&] { for (int i = next++; i < 64; i = next++) piece(i); });
// calls piece(0) ... piece(63) exactly once each, on one or two threads.
void run_in_parallel(int helpers, const std::function<void()>& work);

// The loop above: calls piece(0) ... piece(pieces - 1), each exactly once, taking them in order
// from a shared counter on the calling thread and up to `helpers` pool threads.
//
// Example: for_each_piece(1, 64, [&](int64_t i) { copy_mebibyte(i); });
void for_each_piece(int helpers, int64_t pieces, const std::function<void(int64_t)>& piece);

}  // namespace tessera::relayout
