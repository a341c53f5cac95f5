#include "progress_line.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <string>

namespace tessera::cli {
namespace {

constexpr auto kQuietStart = std::chrono::seconds(1);
constexpr auto kRedraw = std::chrono::milliseconds(250);

std::string size_text(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (bytes >= 1024 && unit < 4) {
    bytes /= 1024;
    ++unit;
  }
  return fmt::format("{:.1f} {}", bytes, units[unit]);
}

}  // namespace

ProgressLine::ProgressLine(ProgressMode mode, int64_t total_bytes)
    : enabled_(mode == ProgressMode::kAlways ||
               (mode == ProgressMode::kAuto && ::isatty(STDERR_FILENO) == 1)),
      forced_(mode == ProgressMode::kAlways),
      total_(total_bytes),
      start_(Clock::now()),
      last_draw_(start_) {}

ProgressLine::~ProgressLine() {
  if (drawn_) std::fputs("\n", stderr);
}

void ProgressLine::update(int64_t done_bytes) {
  if (!enabled_) return;
  const Clock::time_point now = Clock::now();
  const bool finished = done_bytes >= total_;
  if (!forced_ && now - start_ < kQuietStart) return;
  if (drawn_ && (done_bytes == last_done_ || (!finished && now - last_draw_ < kRedraw))) return;
  last_done_ = done_bytes;
  last_draw_ = now;
  drawn_ = true;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  const double rate = seconds > 0 ? static_cast<double>(done_bytes) / seconds : 0;
  const double left = rate > 0 ? static_cast<double>(total_ - done_bytes) / rate : 0;
  std::fprintf(stderr, "\r  %s / %s  %s/s  %.1f s left   ",
               size_text(static_cast<double>(done_bytes)).c_str(),
               size_text(static_cast<double>(total_)).c_str(), size_text(rate).c_str(), left);
  std::fflush(stderr);
}

}  // namespace tessera::cli
