#include "program_liveness.h"

#include <algorithm>

namespace tessera::inputs {

bool is_temporary(const ProgramBuffer& buffer) {
  return buffer.kind == BufferKind::kTemporary && !buffer.constant && buffer.size_bytes > 0 &&
         !buffer.in_output_allocation;
}

void place_temporaries_in_outputs(std::vector<ProgramBuffer>& buffers) {
  // The largest outputs only: bounded work for modules of 100,000 buffers.
  constexpr std::size_t kOutputsTried = 64;
  struct Slot {
    int64_t size = 0;
    int64_t written = 0;      // where the output itself is written
    int64_t busy_until = -1;  // the last use of the temporary it holds
  };
  std::vector<Slot> slots;
  for (const ProgramBuffer& b : buffers) {
    if (b.kind == BufferKind::kOutput && b.memory_space == 0)
      slots.push_back({b.size_bytes, b.defined, -1});
  }
  std::stable_sort(slots.begin(), slots.end(),
                   [](const Slot& x, const Slot& y) { return x.size > y.size; });
  if (slots.size() > kOutputsTried) slots.resize(kOutputsTried);
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i].memory_space == 0 && is_temporary(buffers[i])) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    return buffers[x].defined < buffers[y].defined;
  });
  for (std::size_t i : order) {
    ProgramBuffer& t = buffers[i];
    for (Slot& slot : slots) {
      if (slot.size >= t.size_bytes && t.last_use < slot.written && t.defined > slot.busy_until) {
        t.in_output_allocation = true;
        slot.busy_until = t.last_use;
        break;
      }
    }
  }
}

std::map<int64_t, TemporaryPeak> temporary_peaks(const std::vector<ProgramBuffer>& buffers,
                                                 int64_t length,
                                                 std::vector<int64_t>* hbm_temporaries) {
  std::map<int64_t, std::vector<int64_t>> change;  // space -> bytes added at each position
  for (const ProgramBuffer& b : buffers) {
    if (!is_temporary(b)) continue;
    std::vector<int64_t>& delta = change[b.memory_space];
    if (delta.empty()) delta.assign(static_cast<std::size_t>(length) + 1, 0);
    const int64_t from = std::clamp<int64_t>(b.defined, 0, length);
    const int64_t to = std::clamp<int64_t>(b.last_use + 1, from, length);
    delta[static_cast<std::size_t>(from)] += b.size_bytes;
    delta[static_cast<std::size_t>(to)] -= b.size_bytes;
  }
  std::map<int64_t, TemporaryPeak> peaks;
  if (hbm_temporaries) hbm_temporaries->assign(static_cast<std::size_t>(length), 0);
  for (const auto& [space, delta] : change) {
    TemporaryPeak& peak = peaks[space];
    int64_t alive = 0;
    for (int64_t p = 0; p < length; ++p) {
      alive += delta[static_cast<std::size_t>(p)];
      if (alive > peak.bytes) peak = {alive, p};
      if (space == 0 && hbm_temporaries) (*hbm_temporaries)[static_cast<std::size_t>(p)] = alive;
    }
  }
  return peaks;
}

std::vector<ProgramBuffer> hbm_buffers_alive_at(const std::vector<ProgramBuffer>& buffers,
                                                int64_t position) {
  std::vector<ProgramBuffer> alive;
  for (const ProgramBuffer& b : buffers) {
    if (b.memory_space != 0 || b.size_bytes == 0 || b.constant || b.in_output_allocation) continue;
    const bool held = b.kind != BufferKind::kTemporary;
    if (held || (position >= b.defined && position <= b.last_use)) alive.push_back(b);
  }
  std::stable_sort(alive.begin(), alive.end(),
                   [](const auto& x, const auto& y) { return x.size_bytes > y.size_bytes; });
  return alive;
}

}  // namespace tessera::inputs
