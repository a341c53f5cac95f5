#include "tessera/relayout/relayout_cost.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "tessera/error.h"

namespace tessera::relayout {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Time for the bytes a conversion moves at `bytes_per_second` of copying: a copy of N bytes
// reads N and writes N, so the time goes with the mean of the bytes read and written.
double copy_time(int64_t read, int64_t written, double bytes_per_second) {
  return bytes_per_second > 0
             ? (static_cast<double>(read) + static_cast<double>(written)) / 2 / bytes_per_second
             : 0;
}

}  // namespace

double host_copy_bytes_per_second() {
  static const double speed = [] {
    constexpr std::size_t kBytes = std::size_t{32} << 20;  // past most L2s, like real arrays
    std::vector<std::byte> from(kBytes, std::byte{1}), to(kBytes);
    double best = 0;
    volatile int sink = 0;  // reads the copy, so it is not optimised away
    for (int run = 0; run < 3; ++run) {
      const auto start = Clock::now();
      std::memcpy(to.data(), from.data(), kBytes);
      const double seconds = seconds_since(start);
      sink = sink + static_cast<int>(to[kBytes / 2 + static_cast<std::size_t>(run)]);
      if (seconds > 0) best = std::max(best, static_cast<double>(kBytes) / seconds);
    }
    return best;
  }();
  return speed;
}

RelayoutCost estimate_cost(const RelayoutPlan& plan) {
  RelayoutCost cost;
  cost.bytes_read = plan.source_bytes();
  cost.bytes_written = plan.destination_bytes();
  cost.copy_bytes_per_second = host_copy_bytes_per_second();
  cost.seconds = copy_time(cost.bytes_read, cost.bytes_written, cost.copy_bytes_per_second);
  cost.basis = fmt::format(
      "estimate: the bytes at this host's copy speed ({:.1f} GB/s, a 32 MiB memcpy timed now); "
      "the engine's kernels run at 0.3-1.2 of a copy (docs/performance.md); --measure runs the "
      "plan",
      cost.copy_bytes_per_second / 1e9);
  return cost;
}

RelayoutCost measure_cost(const RelayoutPlan& plan, int repetitions) {
  const int64_t total = plan.source_bytes() + plan.destination_bytes();
  if (total > kMaxMeasuredBytes) {
    throw Error(ErrorKind::kArgument,
                fmt::format("measuring this conversion needs {} bytes of scratch buffers, more "
                            "than the {} a measurement may take; the estimate needs none",
                            total, kMaxMeasuredBytes));
  }
  std::vector<std::byte> source(static_cast<std::size_t>(plan.source_bytes()), std::byte{0x5a});
  std::vector<std::byte> destination(static_cast<std::size_t>(plan.destination_bytes()));
  plan.execute(source, destination);  // faults the pages in
  std::vector<double> times;
  for (int run = 0; run < std::max(1, repetitions); ++run) {
    const auto start = Clock::now();
    plan.execute(source, destination);
    times.push_back(seconds_since(start));
  }
  std::sort(times.begin(), times.end());
  RelayoutCost cost;
  cost.bytes_read = plan.source_bytes();
  cost.bytes_written = plan.destination_bytes();
  cost.copy_bytes_per_second = host_copy_bytes_per_second();
  cost.seconds = times[times.size() / 2];
  cost.measured = true;
  const double copy = copy_time(cost.bytes_read, cost.bytes_written, cost.copy_bytes_per_second);
  cost.basis = fmt::format(
      "measured: the plan run on this host, median of {} after a warm-up, {} thread{}; {:.2f} of "
      "a copy of the same bytes",
      times.size(), plan.threads(), plan.threads() == 1 ? "" : "s",
      cost.seconds > 0 ? copy / cost.seconds : 0.0);
  return cost;
}

}  // namespace tessera::relayout
