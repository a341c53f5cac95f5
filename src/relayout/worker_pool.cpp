#include "worker_pool.h"

#include <fmt/format.h>
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <vector>

#include "tessera/error.h"

namespace tessera::relayout {
namespace {

using Clock = std::chrono::steady_clock;

// An idle helper polls this long before it sleeps: calls that follow each other closely (a
// benchmark loop, a model's tensors converted one by one) then find it awake. Waking a sleeping
// thread costs about as long as this polling, and much longer when its core has been idle a while
// (docs/notes/2026-11-21-worker-pool-and-fair-copy.md).
constexpr auto kIdlePolling = std::chrono::microseconds(100);

// The state of the current call, in one word so that a helper joins it with a single
// compare-and-swap: bits 32-63 tell calls apart, bit 31 is set once the caller has finished its
// share (helpers that arrive later stay out), bits 16-30 count the seats taken so far and bits
// 0-14 the helpers inside now. The limit applies to seats taken, not to helpers inside at once:
// a call for 1 helper that the first helper has already left must not let the pool's other
// sleepers in one after another (seen with a pool of 8 threads: 3-8 extra entries).
constexpr uint64_t kClosed = uint64_t{1} << 31;
constexpr uint64_t kInsideMask = (uint64_t{1} << 15) - 1;
constexpr int kTakenShift = 16;
constexpr uint64_t kOneTaken = uint64_t{1} << kTakenShift;
constexpr int kTagShift = 32;
// Calls asking for more helpers than this start their own threads (and the count fits its bits).
constexpr int kMostPooledHelpers = 256;

void pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Polls `word` until `done(value)` holds, for `polling`, then sleeps on it until it does.
// Returns the value that satisfied `done`.
template <typename Word, typename Done>
Word await(const std::atomic<Word>& word, Clock::duration polling, Done done) {
  const auto give_up = Clock::now() + polling;
  for (int i = 0;; ++i) {
    const Word value = word.load(std::memory_order_acquire);
    if (done(value)) return value;
    if ((i & 63) == 63 && Clock::now() > give_up) break;
    pause();
  }
  for (;;) {
    const Word value = word.load(std::memory_order_acquire);
    if (done(value)) return value;
    word.wait(value, std::memory_order_acquire);
  }
}

class WorkerPool {
 public:
  // Runs the call with the pool's helpers; false (and nothing run) when another call has them.
  bool try_run(int helpers, const std::function<void()>& work) {
    std::unique_lock<std::mutex> lock(busy_, std::try_to_lock);
    if (!lock.owns_lock()) return false;
    grow(helpers);
    work_.store(&work, std::memory_order_relaxed);
    limit_.store(static_cast<uint64_t>(helpers), std::memory_order_relaxed);
    const uint64_t tag = (seats_.load(std::memory_order_relaxed) >> kTagShift) + 1;
    seats_.store(tag << kTagShift, std::memory_order_release);  // open, nobody inside
    generation_.fetch_add(1, std::memory_order_release);
    generation_.notify_all();
    work();
    seats_.fetch_or(kClosed, std::memory_order_acq_rel);
    // Oversubscribed, the caller sleeps at once: its polling would slow the helpers it waits for.
    const bool polls = static_cast<unsigned>(helpers) < std::thread::hardware_concurrency();
    await(seats_, polls ? Clock::duration(kIdlePolling) : Clock::duration::zero(),
          [](uint64_t value) { return (value & kInsideMask) == 0; });
    return true;
  }

 private:
  void grow(int helpers) {
    while (static_cast<int>(threads_.size()) < helpers) {
      const uint32_t seen = generation_.load(std::memory_order_acquire);
      // Helpers beyond the cores would poll at the expense of the threads doing the work.
      const bool polls =
          static_cast<unsigned>(threads_.size()) + 1 < std::thread::hardware_concurrency();
      threads_.emplace_back([this, seen, polls] { serve(seen, polls); }).detach();
    }
  }

  [[noreturn]] void serve(uint32_t seen, bool polls) {
    const Clock::duration polling = polls ? Clock::duration(kIdlePolling) : Clock::duration::zero();
    for (;;) {
      seen = await(generation_, polling, [seen](uint32_t value) { return value != seen; });
      join();
    }
  }

  // Takes a seat in the open call, if there is one with room, and works on it.
  void join() {
    uint64_t seats = seats_.load(std::memory_order_acquire);
    do {
      if ((seats & kClosed) != 0) return;
      if (((seats >> kTakenShift) & kInsideMask) >= limit_.load(std::memory_order_relaxed)) return;
    } while (!seats_.compare_exchange_weak(seats, seats + kOneTaken + 1, std::memory_order_acq_rel,
                                           std::memory_order_acquire));
    // The seat was taken while this call was open, so its work_ is still alive.
    (*work_.load(std::memory_order_relaxed))();
    const uint64_t after = seats_.fetch_sub(1, std::memory_order_acq_rel) - 1;
    if ((after & kClosed) != 0 && (after & kInsideMask) == 0) seats_.notify_one();
  }

  std::mutex busy_;
  std::vector<std::thread> threads_;  // detached: the pool lives as long as the process
  std::atomic<uint32_t> generation_{0};
  std::atomic<uint64_t> seats_{kClosed};
  std::atomic<uint64_t> limit_{0};
  std::atomic<const std::function<void()>*> work_{nullptr};
};

std::atomic<WorkerPool*> current_pool{nullptr};

// A forked child has none of the parent's threads: it starts a pool of its own. The old one is
// left as it was (its mutex may be held by a thread that no longer exists).
void start_pool_after_fork() {
  current_pool.store(new WorkerPool, std::memory_order_release);
}

// Never destroyed: helpers may still be polling while static destructors run at exit.
WorkerPool& pool() {
  static const bool registered = [] {
    current_pool.store(new WorkerPool, std::memory_order_release);
    return pthread_atfork(nullptr, nullptr, start_pool_after_fork) == 0;
  }();
  static_cast<void>(registered);
  return *current_pool.load(std::memory_order_acquire);
}

// A thread the system will not start (a memory or process limit: `tune --threads 1024` under a
// 1 GiB address space) is an error naming the count, not std::terminate from a vector of joinable
// threads (tests/cli/test_hostile_round3_cli.py).
[[noreturn]] void cannot_start(int helpers, const std::system_error& e) {
  throw Error(ErrorKind::kArgument,
              fmt::format("cannot start {} threads: the system refused one ({}); ask for fewer "
                          "threads",
                          helpers + 1, e.code().message()));
}

}  // namespace

void run_in_parallel(int helpers, const std::function<void()>& work) {
  if (helpers <= 0) {
    work();
    return;
  }
  try {
    if (helpers <= kMostPooledHelpers && pool().try_run(helpers, work)) return;
  } catch (const std::system_error& e) {  // from grow(), before any work was handed out
    cannot_start(helpers, e);
  }
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(helpers));
  std::optional<std::system_error> refused;
  for (int h = 0; h < helpers && !refused; ++h) {
    try {
      threads.emplace_back(work);
    } catch (const std::system_error& e) {
      refused = e;
    }
  }
  // The threads started take their share of the pieces; the caller finishes the rest, so they
  // can be joined before the error is raised.
  work();
  for (std::thread& t : threads) t.join();
  if (refused) cannot_start(helpers, *refused);
}

void for_each_piece(int helpers, int64_t pieces, const std::function<void(int64_t)>& piece) {
  std::atomic<int64_t> next{0};
  run_in_parallel(helpers, [&] {
    for (int64_t i = next++; i < pieces; i = next++) piece(i);
  });
}

}  // namespace tessera::relayout
