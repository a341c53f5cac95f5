#include "relayout/worker_pool.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace tessera::relayout {
namespace {

// Runs `pieces` pieces through for_each_piece (over run_in_parallel) and returns how often each
// ran.
std::vector<int> run_pieces(int helpers, int pieces) {
  std::vector<std::atomic<int>> runs(static_cast<std::size_t>(pieces));
  for_each_piece(helpers, pieces, [&](int64_t i) { runs[static_cast<std::size_t>(i)]++; });
  std::vector<int> counts;
  for (const auto& r : runs) counts.push_back(r.load());
  return counts;
}

TEST(WorkerPool, EveryPieceRunsExactlyOnceWhateverTheNumberOfHelpers) {
  for (int helpers : {0, 1, 2, 3, 8}) {
    for (int pieces : {0, 1, 2, 7, 64, 1000}) {
      for (int repeat = 0; repeat < 20; ++repeat) {
        EXPECT_EQ(run_pieces(helpers, pieces),
                  std::vector<int>(static_cast<std::size_t>(pieces), 1))
            << helpers << " helpers, " << pieces << " pieces";
      }
    }
  }
}

TEST(WorkerPool, HelpersReallyRunAlongsideTheCaller) {
  // Every thread that enters waits (at most 10 s) until a second one has entered: this returns
  // quickly only if a helper joins while the caller is still working.
  for (int repeat = 0; repeat < 50; ++repeat) {
    std::atomic<int> entered{0};
    std::atomic<bool> met{false};
    run_in_parallel(1, [&] {
      ++entered;
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (entered.load() < 2 && std::chrono::steady_clock::now() < give_up)
        std::this_thread::yield();
      if (entered.load() >= 2) met = true;
    });
    ASSERT_TRUE(met.load()) << "call " << repeat;
  }
}

TEST(WorkerPool, ConcurrentCallersEachGetTheirPiecesDone) {
  // One caller holds the pool, the others start their own threads: all must complete correctly.
  std::vector<std::thread> callers;
  std::atomic<int> wrong{0};
  for (int c = 0; c < 4; ++c) {
    callers.emplace_back([&, c] {
      for (int repeat = 0; repeat < 200; ++repeat) {
        const int pieces = 10 + c * 7 + repeat % 5;
        if (run_pieces(1 + c % 2, pieces) != std::vector<int>(static_cast<std::size_t>(pieces), 1))
          ++wrong;
      }
    });
  }
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(WorkerPool, ACallTakesNoMoreHelpersThanItAskedFor) {
  // A pool of 8 threads is woken for a 1-helper call; the caller keeps the call open for a while
  // after its helper has left. Helpers entering one after another used to be let in (3-8 extra
  // entries): the limit counts seats taken, not helpers inside at once.
  run_pieces(8, 64);
  const std::thread::id caller = std::this_thread::get_id();
  for (int repeat = 0; repeat < 20; ++repeat) {
    std::atomic<int> entered{0};
    run_in_parallel(1, [&] {
      ++entered;
      if (std::this_thread::get_id() != caller) return;
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (entered.load() < 2 && std::chrono::steady_clock::now() < give_up)
        std::this_thread::yield();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    });
    ASSERT_EQ(entered.load(), 2) << "call " << repeat;
  }
}

// True when a helper joins a call while the caller is still in it (the caller waits for it, at
// most 10 s).
bool a_helper_joins() {
  std::atomic<int> entered{0};
  run_in_parallel(1, [&] {
    ++entered;
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (entered.load() < 2 && std::chrono::steady_clock::now() < give_up)
      std::this_thread::yield();
  });
  return entered.load() == 2;
}

TEST(WorkerPool, AForkedChildStartsItsOwnHelpers) {
  // The parent's helper must be running, not still starting, when the parent forks: a thread
  // caught inside the sanitizers' thread start-up holds their internal locks, and a forked child
  // cannot take them again (seen under clang 14's ASan, 1 run in 3).
  ASSERT_TRUE(a_helper_joins());
  ASSERT_EQ(run_pieces(1, 100), std::vector<int>(100, 1));
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const bool ok = run_pieces(1, 100) == std::vector<int>(100, 1);
    _exit(ok && a_helper_joins() ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace tessera::relayout
