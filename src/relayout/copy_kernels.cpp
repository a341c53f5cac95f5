#include "relayout/copy_kernels.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "relayout/box_walk.h"
#include "relayout/element_access.h"
#include "relayout/simd_kernels.h"
#include "relayout/transpose_box.h"
#include "tessera/relayout/streaming_copy.h"

namespace tessera::relayout {
namespace {

// Finds an axis (from index 2 on) that continues `run` elements on one side and has a count
// divisible by `group`; splits it into (group, rest) and moves the group part to `position`.
bool take_group(StridedBox& box, int64_t run, int64_t group, bool destination_side,
                std::size_t position) {
  if (group == 1) {
    box.axes.insert(box.axes.begin() + static_cast<std::ptrdiff_t>(position), StridedAxis{1, 0, 0});
    return true;
  }
  for (std::size_t k = position; k < box.axes.size(); ++k) {
    StridedAxis& axis = box.axes[k];
    const int64_t stride = destination_side ? axis.destination_stride : axis.source_stride;
    if (stride != run || axis.count % group != 0) continue;
    const StridedAxis low{group, axis.source_stride, axis.destination_stride};
    axis = {axis.count / group, axis.source_stride * group, axis.destination_stride * group};
    box.axes.insert(box.axes.begin() + static_cast<std::ptrdiff_t>(position), low);
    return true;
  }
  return false;
}

// Reads one byte of every line that starts in [end_of_last, next), the gap between two rows of
// runs, so that the hardware prefetcher follows the source as one stream. A row whose last,
// partial tile belongs to another box (f32[16380,16380] -> T(8,128): 127 runs of 512 bytes, then
// 496 bytes left) otherwise loses its prefetch stream at every row
// (docs/notes/2026-11-25-zen5-row-gaps-and-read-streams.md). Gaps of two lines are left alone:
// the prefetcher skips those on its own, and reading them made the copy slower.
// Prefetch instructions over the gap instead of loads changed nothing. Gaps longer than 1 KiB, or
// more than an eighth of the bytes a row's runs span, are not read: they would add traffic for no
// measured gain.
void read_short_gap(const std::byte* end_of_last, const std::byte* next, int64_t row_span) {
  constexpr int64_t kLine = 64;
  const int64_t gap = next - end_of_last;
  if (gap <= 2 * kLine || gap > 1024 || gap * 8 > row_span) return;
  const auto misaligned = static_cast<int64_t>(reinterpret_cast<uintptr_t>(end_of_last) % kLine);
  std::byte seen{0};
  for (int64_t at = misaligned == 0 ? 0 : kLine - misaligned; at < gap; at += kLine) {
    seen |= end_of_last[at];
  }
  [[maybe_unused]] volatile std::byte keep = seen;  // the loads must happen
}

// Axes from `first` on, innermost (smallest |stride| on one side) first; stable, so ties keep
// their order.
template <typename Stride>
void sort_axes_by(std::vector<StridedAxis>& axes, std::size_t first, Stride stride) {
  std::stable_sort(axes.begin() + static_cast<std::ptrdiff_t>(first), axes.end(),
                   [&](const StridedAxis& x, const StridedAxis& y) {
                     return std::abs(stride(x)) < std::abs(stride(y));
                   });
}

int64_t source_stride_of(const StridedAxis& axis) {
  return axis.source_stride;
}
int64_t destination_stride_of(const StridedAxis& axis) {
  return axis.destination_stride;
}

void sort_outer_by_source(StridedBox& box, std::size_t first) {
  sort_axes_by(box.axes, first, source_stride_of);
  std::erase_if(box.axes, [&](const StridedAxis& axis) {
    return axis.count == 1 && &axis - box.axes.data() >= static_cast<std::ptrdiff_t>(first);
  });
}

// For 4-byte transposes whose tiles are smaller than 16x16 (A and B dividing 16): groups
// neighbouring tiles into 16x16 ones. Returns false (box unchanged) when the axes do not allow it.
// When one side is shorter than 16, the other (a multiple of 16) is cut into runs of 16 first:
// Fortran order to T(8,128) is 128 rows by 8 columns, and two such strips make a 16x16 tile
// (without this, every tile took the scalar loop: docs/notes/2026-11-23-strided-numpy-arrays.md).
// Boxes with both sides of 16 or more keep the blocked plain transpose.
bool group_small_tiles(StridedBox& box) {
  StridedBox grouped = box;
  for (std::size_t side = 0; side < 2; ++side) {
    StridedAxis& axis = grouped.axes[side];
    if (axis.count <= 16 || axis.count % 16 != 0 || box.axes[1 - side].count >= 16) continue;
    const StridedAxis rest{axis.count / 16, axis.source_stride * 16, axis.destination_stride * 16};
    axis.count = 16;
    grouped.axes.insert(grouped.axes.begin() + 2, rest);
  }
  const int64_t rows = grouped.axes[0].count;
  const int64_t columns = grouped.axes[1].count;
  if (rows > 16 || columns > 16 || 16 % rows != 0 || 16 % columns != 0) return false;
  if (!take_group(grouped, rows, 16 / rows, true, 2)) return false;
  if (!take_group(grouped, columns, 16 / columns, false, 3)) return false;
  sort_outer_by_source(grouped, 4);
  box = std::move(grouped);
  return true;
}

// One element at a time, in words the compiler moves in a register (a memcpy of a run-time size
// per element was a call each): reversed and stepped NumPy views (x[:, ::-1], x[:, ::2]) come
// here.
template <int kBytes>
void strided_words(const StridedBox& box, const std::byte* source, std::byte* destination) {
  const StridedAxis& inner = box.axes[0];
  for_each_outer(box, 1, [&](int64_t s, int64_t d) {
    const std::byte* from = source + s * kBytes;
    std::byte* to = destination + d * kBytes;
    for (int64_t i = 0; i < inner.count; ++i) {
      Word<kBytes> v;
      std::memcpy(&v, from + i * inner.source_stride * kBytes, kBytes);
      std::memcpy(to + i * inner.destination_stride * kBytes, &v, kBytes);
    }
  });
}

void strided_box(const StridedBox& box, int bytes, bool streaming, const std::byte* source,
                 std::byte* destination) {
  const StridedAxis& row = box.axes[0];
  if (row.destination_stride == 1) {  // reversed or stepped rows: Highway, when it takes them
    bool done = true;
    for_each_outer(box, 1, [&](int64_t s, int64_t d) {
      done = done && gather_row(source + s * bytes, row.source_stride, bytes, row.count,
                                destination + d * bytes, streaming);
    });
    if (done) return;
  }
  switch (bytes) {
    case 1:
      return strided_words<1>(box, source, destination);
    case 2:
      return strided_words<2>(box, source, destination);
    case 4:
      return strided_words<4>(box, source, destination);
    case 8:
      return strided_words<8>(box, source, destination);
    default:
      break;
  }
  const StridedAxis& inner = box.axes[0];
  const auto size = static_cast<std::size_t>(bytes);
  for_each_outer(box, 1, [&](int64_t s, int64_t d) {
    for (int64_t i = 0; i < inner.count; ++i) {
      std::memcpy(destination + (d + i * inner.destination_stride) * bytes,
                  source + (s + i * inner.source_stride) * bytes, size);
    }
  });
}

void bits_box(const StridedBox& box, const CopyKernel& k, const std::byte* source,
              std::byte* destination) {
  const StridedAxis& inner = box.axes[0];
  for_each_outer(box, 1, [&](int64_t s, int64_t d) {
    for (int64_t i = 0; i < inner.count; ++i) {
      const uint64_t v = read_element(source, s + i * inner.source_stride, k.source_bits);
      write_element(destination, d + i * inner.destination_stride, k.destination_bits,
                    convert_width(v, k.source_bits, k.destination_bits, k.sign_extend));
    }
  });
}

void pack_bits_box(const StridedBox& box, bool streaming, bool avx2, const std::byte* source,
                   std::byte* destination) {
  const StridedAxis& inner = box.axes[0];
  const StridedAxis& pair = box.axes[1];
  for_each_outer(box, 2, [&](int64_t s, int64_t d) {
    std::byte* to = destination + d / 8;
    if (pack_bits_32_rows(source + s, inner.source_stride, pair.count, to, streaming, avx2)) return;
    for (int64_t j = 0; j < pair.count; ++j) {
      uint32_t word = 0;
      for (int i = 0; i < 32; ++i) {
        word |= (static_cast<uint32_t>(source[s + i * inner.source_stride + j]) & 1u) << i;
      }
      std::memcpy(to + j * 4, &word, 4);
    }
  });
}

bool whole_bytes(int bits) {
  return bits % 8 == 0;
}

}  // namespace

// The axis right after the runs continues them contiguously on one side: its runs are taken in
// one sweep there, and on the other side that many streams are open at once. kSource follows the
// source; kFewerStreams follows the side that leaves the other fewer streams open (the source on
// a tie). Row-major <-> T(8,128): untiling follows the source either way (tiles read in turn, 8
// destination rows open); tiling with kFewerStreams writes whole tiles in turn with 8 source rows
// open, and with kSource reads one row at a time with 32 tiles open for writing. Which is faster
// depends on the host (docs/notes/2026-11-27-host-rules.md: Zen 3 one way, Zen 5 the other).
bool order_runs_walk(StridedBox& box, Walk walk) {
  // Sorted in place from axis 1 on: the run axis, which callers hold references to, stays put.
  using Axes = std::vector<StridedAxis>;
  const auto sorted_by = [&box](auto stride) {
    Axes axes = box.axes;
    sort_axes_by(axes, 1, stride);
    return axes;
  };
  const auto sweep = [](const Axes& axes) {  // runs per sweep: the next axis that repeats
    for (std::size_t k = 1; k < axes.size(); ++k) {
      if (axes[k].count > 1) return axes[k].count;
    }
    return int64_t{1};
  };
  const Axes by_source = sorted_by(source_stride_of);
  const Axes by_destination = sorted_by(destination_stride_of);
  const bool fewer_by_destination = sweep(by_destination) < sweep(by_source);
  const Axes& chosen =
      walk == Walk::kFewerStreams && fewer_by_destination ? by_destination : by_source;
  std::copy(chosen.begin(), chosen.end(), box.axes.begin());
  return fewer_by_destination;
}

CopyKernel choose_copy_kernel(StridedBox& box, int source_bits, int destination_bits,
                              bool sign_extend, bool streaming) {
  if (box.axes.empty()) box.axes.push_back({1, 1, 1});
  CopyKernel k;
  k.source_bits = source_bits;
  k.destination_bits = destination_bits;
  k.sign_extend = sign_extend;
  const StridedAxis& inner = box.axes[0];
  if (source_bits == destination_bits && whole_bytes(source_bits)) {
    const int bytes = source_bits / 8;
    const bool word = bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8;
    if (inner.source_stride == 1 && inner.destination_stride == 1) {
      k.kind = KernelKind::kRuns;
      k.streaming = streaming && inner.count * bytes >= 256;  // Highway: every target streams
      order_runs_walk(box, Walk::kSource);
      return k;
    }
    if (word && inner.destination_stride == 1) {
      for (std::size_t a = 1; a < box.axes.size(); ++a) {
        if (box.axes[a].source_stride == 1) {
          std::rotate(box.axes.begin() + 1, box.axes.begin() + static_cast<std::ptrdiff_t>(a),
                      box.axes.begin() + static_cast<std::ptrdiff_t>(a) + 1);
          k.kind = KernelKind::kTranspose;
          k.streaming = streaming;
          // As for runs: walk the tiles in source order so the reads stream.
          k.grouped = bytes == 4 && group_small_tiles(box);
          if (!k.grouped) sort_outer_by_source(box, 2);
          return k;
        }
      }
    }
    k.kind = KernelKind::kStrided;
    k.streaming = streaming && inner.destination_stride == 1;
    return k;
  }
  if (source_bits == 8 && destination_bits == 1 && box.axes.size() >= 2 && inner.count == 32 &&
      inner.destination_stride == 1 && box.axes[1].source_stride == 1 &&
      box.axes[1].destination_stride == 32 && box.destination_base % 32 == 0 &&
      std::all_of(box.axes.begin() + 2, box.axes.end(),
                  [](const StridedAxis& a) { return a.destination_stride % 32 == 0; })) {
    k.kind = KernelKind::kPackBits;
    k.streaming = streaming;  // the Highway kernel streams on every target
    sort_outer_by_source(box, 2);
  }
  return k;
}

std::optional<StridedBox> split_off_unpaired_tiles(StridedBox& box, int source_bits,
                                                   int destination_bits, bool streaming) {
  if (source_bits != 32 || destination_bits != 32) return std::nullopt;
  const auto groups = [&](StridedBox trial) {
    const CopyKernel k = choose_copy_kernel(trial, source_bits, destination_bits, false, streaming);
    return k.kind == KernelKind::kTranspose && k.grouped;
  };
  if (box.axes.size() < 3 || groups(box)) return std::nullopt;
  // An odd number of 8-row tile rows otherwise sends the whole array to the ungrouped 8-row
  // transpose; cut off, the last tile row goes alone and the rest groups, both ways
  // (f32[8200,8192]: docs/notes/2026-11-25-fortran-destinations-whole-lines.md).
  for (std::size_t a = 0; a < box.axes.size(); ++a) {
    const StridedAxis axis = box.axes[a];
    for (const int64_t pairing : {2, 4, 8, 16}) {
      const int64_t kept = axis.count / pairing * pairing;
      if (kept == axis.count || kept == 0) continue;
      StridedBox head = box;
      head.axes[a].count = kept;
      if (!groups(head)) continue;
      StridedBox rest = box;
      rest.axes[a].count = axis.count - kept;
      rest.source_base += kept * axis.source_stride;
      rest.destination_base += kept * axis.destination_stride;
      box = std::move(head);
      return rest;
    }
  }
  return std::nullopt;
}

void copy_box(const StridedBox& box, const CopyKernel& k, const std::byte* source,
              std::byte* destination) {
  switch (k.kind) {
    case KernelKind::kRuns: {
      const int bytes = k.source_bits / 8;
      const auto run = static_cast<std::size_t>(box.axes[0].count * bytes);
      if (k.streaming) {  // many runs per call: a 512-byte run is too short to pay a call each
        const StridedAxis next = box.axes.size() > 1 ? box.axes[1] : StridedAxis{1, 0, 0};
        const int64_t row_span = (next.count - 1) * next.source_stride * bytes + run;
        const std::byte* end_of_last = nullptr;
        for_each_outer(box, 2, [&](int64_t s, int64_t d) {
          const std::byte* from = source + s * bytes;
          if (next.source_stride >= 0 && end_of_last != nullptr) {
            read_short_gap(end_of_last, from, row_span);
          }
          stream_runs(destination + d * bytes, next.destination_stride * bytes, from,
                      next.source_stride * bytes, run, next.count, k.variant.simd == Simd::kAvx2);
          end_of_last = from + row_span;
        });
        store_fence();
        return;
      }
      for_each_outer(box, 1, [&](int64_t s, int64_t d) {
        std::memcpy(destination + d * bytes, source + s * bytes, run);
      });
      return;
    }
    case KernelKind::kTranspose:
      transpose_box(box, k, source, destination);
      if (k.streaming) store_fence();
      return;
    case KernelKind::kStrided:
      strided_box(box, k.source_bits / 8, k.streaming, source, destination);
      if (k.streaming) store_fence();
      return;
    case KernelKind::kPackBits:
      pack_bits_box(box, k.streaming, k.variant.simd == Simd::kAvx2, source, destination);
      if (k.streaming) store_fence();
      return;
    case KernelKind::kBits:
      bits_box(box, k, source, destination);
      return;
  }
}

void fill_box(const StridedBox& box, int bits, uint64_t fill_bits, std::byte* destination) {
  // An empty box may come with an empty (null) destination: nothing to write, and memset of a
  // null pointer is undefined even for 0 bytes (fuzz_relayout_pair: pred[40,0] to T(32,4)).
  if (box.elements() == 0) return;
  StridedBox b = box;
  if (b.axes.empty()) b.axes.push_back({1, 0, 1});
  const StridedAxis& inner = b.axes[0];
  if (!whole_bytes(bits)) {
    for_each_outer(b, 1, [&](int64_t, int64_t d) {
      for (int64_t i = 0; i < inner.count; ++i)
        write_element(destination, d + i * inner.destination_stride, bits, fill_bits);
    });
    return;
  }
  const int bytes = bits / 8;
  std::vector<std::byte> pattern(static_cast<std::size_t>(bytes), std::byte{0});
  std::memcpy(pattern.data(), &fill_bits, static_cast<std::size_t>(std::min(bytes, 8)));
  const bool uniform =
      std::all_of(pattern.begin(), pattern.end(), [&](std::byte x) { return x == pattern[0]; });
  for_each_outer(b, 1, [&](int64_t, int64_t d) {
    if (inner.destination_stride == 1 && uniform) {
      std::memset(destination + d * bytes, static_cast<int>(pattern[0]),
                  static_cast<std::size_t>(inner.count * bytes));
      return;
    }
    for (int64_t i = 0; i < inner.count; ++i) {
      std::memcpy(destination + (d + i * inner.destination_stride) * bytes, pattern.data(),
                  pattern.size());
    }
  });
}

std::string describe_box(const StridedBox& box, const CopyKernel& k) {
  static const char* const kNames[] = {"runs", "transpose", "strided", "pack-bits", "bits"};
  std::string counts;
  for (const StridedAxis& a : box.axes)
    counts += (counts.empty() ? "" : "x") + std::to_string(a.count);
  return fmt::format("{} {} axes [{}] {}->{} bits{}, simd {}", kNames[static_cast<int>(k.kind)],
                     box.axes.size(), counts, k.source_bits, k.destination_bits,
                     k.streaming ? " streaming" : "", simd_target(box, k));
}

std::string simd_target(const StridedBox& box, const CopyKernel& k) {
  const bool avx2 = k.variant.simd == Simd::kAvx2;
  switch (k.kind) {
    case KernelKind::kRuns:
      return k.streaming ? fmt::format("{} (Highway)", stream_target(avx2)) : "none (memcpy)";
    case KernelKind::kTranspose: {
      if (k.source_bits == 32) {
        return fmt::format("{} (Highway)", uses_staged_transpose(k) || k.grouped
                                               ? staged_transpose_target(avx2)
                                               : transpose_target());
      }
      return uses_interleave(box, k) || uses_deinterleave(box, k)
                 ? fmt::format("{} (Highway)", interleave_target(avx2))
                 : "none (scalar)";
    }
    case KernelKind::kPackBits:
      return box.axes[1].count % kInterleaveRowBytes == 0
                 ? fmt::format("{} (Highway)", pack_bits_target(avx2))
                 : "none (scalar)";
    case KernelKind::kStrided: {
      const StridedAxis& row = box.axes[0];
      if (row.destination_stride == 1 && gather_row_takes(row.source_stride, k.source_bits / 8)) {
        return fmt::format("{} (Highway)", gather_target());
      }
      break;
    }
    case KernelKind::kBits:
      break;
  }
  return "none (scalar)";
}

void streaming_copy(std::byte* destination, const std::byte* source, std::size_t bytes) {
  stream_copy(destination, source, bytes, model_variant(KernelClass::kRuns).simd == Simd::kAvx2);
  store_fence();
}

}  // namespace tessera::relayout
