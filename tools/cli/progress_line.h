// The progress line of long file conversions: bytes done, rate and time left on
// stderr, redrawn in place a few times a second once a run has taken about a second (from the
// start, and at the end, when forced with --progress).
//   "  384.0 MiB / 1.0 GiB  1.9 GiB/s  0.3 s left"
#pragma once

#include <chrono>
#include <cstdint>

namespace tessera::cli {

enum class ProgressMode { kAuto, kAlways, kNever };  // kAuto: only when stderr is a terminal

class ProgressLine {
 public:
  ProgressLine(ProgressMode mode, int64_t total_bytes);
  ~ProgressLine();  // ends the line if one was drawn
  void update(int64_t done_bytes);

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_ = false;
  bool forced_ = false;
  bool drawn_ = false;
  int64_t total_ = 0;
  int64_t last_done_ = -1;
  Clock::time_point start_;
  Clock::time_point last_draw_;
};

}  // namespace tessera::cli
