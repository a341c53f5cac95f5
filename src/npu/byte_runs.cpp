#include "tessera/npu/byte_runs.h"

#include <fmt/format.h>

#include <algorithm>

#include "tessera/checked_arithmetic.h"
#include "tessera/error.h"

namespace tessera::npu {
namespace {

struct Axis {
  int64_t extent;
  int64_t stride_bytes;
};

}  // namespace

std::vector<ByteRuns> stored_byte_runs(const LocalTensor& tensor) {
  const Device& device = tensor.device();
  const int64_t e = tensor.stored_element_bytes();
  const TensorShape& stored = tensor.stored_shape();
  const Strides& s = tensor.strides();
  // The axes inside one channel row (stored N, H, W); the channel row is chosen per NPU below.
  std::vector<Axis> inner;
  for (int axis : {0, 2, 3}) {
    if (stored[axis] > 1) inner.push_back({stored[axis], s[axis] * e});
  }
  std::sort(inner.begin(), inner.end(),
            [](const Axis& a, const Axis& b) { return a.stride_bytes < b.stride_bytes; });
  // Fold the innermost axes whose elements touch into one run: W then H in the aligned layout.
  int64_t run_bytes = e;
  std::size_t folded = 0;
  while (folded < inner.size() && inner[folded].stride_bytes == run_bytes) {
    run_bytes = checked_multiply(run_bytes, inner[folded].extent, "a run");
    ++folded;
  }
  const std::vector<Axis> outer(inner.begin() + static_cast<std::ptrdiff_t>(folded), inner.end());
  int64_t runs_per_row = 1;
  for (const Axis& a : outer) runs_per_row = checked_multiply(runs_per_row, a.extent, "runs");
  const int64_t channel_rows_total = tensor.shape()[1];  // channels over all NPUs
  if (runs_per_row > kMaxByteRuns / channel_rows_total) {
    throw Error(ErrorKind::kUnsupported,
                fmt::format("the tensor is stored in {} x {} separate byte runs; plans compare "
                            "at most {} runs per tensor",
                            runs_per_row, channel_rows_total, kMaxByteRuns));
  }
  // The offsets of the runs of one channel row, relative to the row's first byte.
  std::vector<int64_t> row_offsets{0};
  for (const Axis& a : outer) {
    std::vector<int64_t> next;
    next.reserve(row_offsets.size() * static_cast<std::size_t>(a.extent));
    for (int64_t i = 0; i < a.extent; ++i) {
      for (int64_t base : row_offsets) next.push_back(base + i * a.stride_bytes);
    }
    row_offsets = std::move(next);
  }
  std::vector<ByteRuns> result(static_cast<std::size_t>(device.npus));
  const int64_t start = tensor.start().offset;
  for (int64_t c = 0; c < tensor.shape()[1]; ++c) {
    ByteRuns& runs = result[static_cast<std::size_t>(tensor.npu_of_channel(c))];
    const int64_t row_begin = start + tensor.row_of_channel(c) * s[1] * e;
    for (int64_t offset : row_offsets) {
      runs.push_back({row_begin + offset, row_begin + offset + run_bytes});
    }
  }
  for (ByteRuns& runs : result) runs = normalize_runs(std::move(runs));
  return result;
}

ByteRuns normalize_runs(ByteRuns runs) {
  std::sort(runs.begin(), runs.end(),
            [](const ByteRun& a, const ByteRun& b) { return a.begin < b.begin; });
  ByteRuns out;
  for (const ByteRun& run : runs) {
    if (run.end <= run.begin) continue;
    if (!out.empty() && run.begin <= out.back().end) {
      out.back().end = std::max(out.back().end, run.end);
    } else {
      out.push_back(run);
    }
  }
  return out;
}

ByteRuns intersect_runs(const ByteRuns& a, const ByteRuns& b) {
  ByteRuns out;
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < a.size() && j < b.size()) {
    const int64_t begin = std::max(a[i].begin, b[j].begin);
    const int64_t end = std::min(a[i].end, b[j].end);
    if (begin < end) out.push_back({begin, end});
    if (a[i].end < b[j].end) {
      ++i;
    } else {
      ++j;
    }
  }
  return out;
}

ByteRuns unite_runs(const ByteRuns& a, const ByteRuns& b) {
  ByteRuns all(a);
  all.insert(all.end(), b.begin(), b.end());
  return normalize_runs(std::move(all));
}

ByteRuns complement_runs(const ByteRuns& runs, int64_t begin, int64_t end) {
  ByteRuns out;
  int64_t cursor = begin;
  for (const ByteRun& run : runs) {
    if (run.end <= cursor) continue;
    if (run.begin >= end) break;
    if (run.begin > cursor) out.push_back({cursor, run.begin});
    cursor = std::max(cursor, run.end);
  }
  if (cursor < end) out.push_back({cursor, end});
  return out;
}

int64_t total_bytes(const ByteRuns& runs) {
  int64_t total = 0;
  for (const ByteRun& run : runs) total += run.size();
  return total;
}

std::vector<int64_t> banks_of(const ByteRuns& runs, int64_t bank_bytes) {
  std::vector<int64_t> banks;
  for (const ByteRun& run : runs) {
    for (int64_t bank = run.begin / bank_bytes; bank <= (run.end - 1) / bank_bytes; ++bank) {
      if (banks.empty() || banks.back() < bank) banks.push_back(bank);
    }
  }
  return banks;
}

}  // namespace tessera::npu
