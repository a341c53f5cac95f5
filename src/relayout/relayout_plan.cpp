#include "tessera/relayout/relayout_plan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <thread>
#include <vector>

#include "relayout/cache_size.h"
#include "relayout/common_refinement.h"
#include "relayout/copy_kernels.h"
#include "relayout/element_access.h"
#include "relayout/host_profile.h"
#include "relayout/plan_choices.h"
#include "relayout/plan_classes.h"
#include "relayout/plan_internals.h"
#include "relayout/size_class.h"
#include "relayout/staged_transpose.h"
#include "relayout/strided_operand.h"
#include "relayout/worker_pool.h"
#include "tessera/error.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tessera::relayout {
namespace {

// Outputs at least this large are written with non-temporal stores: they would only evict the
// caches (docs/performance.md, "Method": a streaming-store copy is the ceiling).
constexpr int64_t kStreamingBytes = int64_t{4} << 20;

// Which kernels write with non-temporal stores without wisdom (the `auto` store of a variant,
// kernel_variant.h; the planner's measured choices replace it). Contiguous runs stream only when
// what they write would not stay in the last-level cache: more than three quarters of it, the
// threshold glibc's memcpy uses (glibc commit d3c5702, 2020): streaming an output that fits the
// cache lost to plain stores (docs/notes/2026-11-25-zen5-row-gaps-and-read-streams.md, item 4).
// The other kernels keep the 4 MiB rule: plain stores measured slower for transposes even within
// the cache (docs/notes/2026-11-24-three-transpose-ideas.md). Some hosts also stream runs spread
// over a destination larger than the cache (a prior, host_profile.h).
// RelayoutOptions::streaming_bytes >= 0 replaces these rules with its destination size.
struct Streaming {
  bool kernels = false;
  bool runs = false;
};

// `threads` >= 1: the plan's own count.
Streaming choose_streaming(int64_t destination_bytes, int64_t written_bytes, int threads,
                           const RelayoutOptions& options) {
  if (options.streaming_bytes >= 0) {
    const bool all = destination_bytes >= options.streaming_bytes;
    return {all, all};
  }
  const int64_t cache = last_level_cache_bytes();
  const int64_t fits = cache / 4 * 3;
  const bool fits_cache = cache > 0 && written_bytes <= fits;
  const bool kernels = destination_bytes >= kStreamingBytes;
  const bool spread = host_priors().stream_spread_runs && destination_bytes > fits &&
                      written_bytes / threads >= kStreamingBytes;
  return {kernels, kernels && (!fits_cache || spread)};
}

// Work is handed to threads in pieces of about this many destination bytes (times the variant's
// piece_mib).
constexpr int64_t kTaskBytes = int64_t{1} << 20;
// At most this many pieces per box, so that a plan's size is bounded whatever the array's: a
// 36 TB array made 36 million tasks and 2 GB (fuzz/seeds/layout_diff/plan_of_36_terabytes).
// Arrays above 64 GiB get larger pieces instead; threads still share them evenly.
constexpr int64_t kMostPieces = int64_t{1} << 16;
// Buffers larger than this get no plan (build_plan).
constexpr int64_t kMaxPlannedBytes = int64_t{1} << 52;

struct Task {
  StridedBox box;
  CopyKernel kernel;
  bool fill = false;
  std::string origin;  // where the kernel's variant came from, for describe()
  std::string pitch;   // the row pitch class its variant was looked up for (plan_classes.h)
  // A staged transpose's piece (split along its destination rows): whether pieces come before
  // and after it, whose shared ends move to a line boundary when the piece runs (on_lines).
  bool staged_piece = false, piece_before = false, piece_after = false;
};

// A staged transpose piece whose ends are moved on to where the destination rows' lines start
// (the same number of elements for every piece: they are cut at multiples of 16 elements), so
// that no line is written in two parts by two pieces: NumPy's arrays start 16 bytes into a line,
// and the kernel starts its bands on the lines too (staged_transpose.cpp;
// docs/notes/2026-11-28-numpy-aligned-transposes.md). Unchanged where the rows' lines do not
// all start alike.
StridedBox on_lines(const Task& t, const std::byte* destination) {
  StridedBox box = t.box;
  constexpr int64_t kBytes = 4;  // staged transposes move 4-byte elements
  StridedAxis& rows = box.axes[0];
  if (!t.staged_piece || rows.destination_stride != 1 || box.axes.size() < 2) return box;
  // Nothing here depends on the piece but its offset, a multiple of 64 bytes: every piece moves
  // alike, or none does (and each is longer than the move: split_into_tasks).
  const int64_t lead = elements_before_line(destination + box.destination_base * kBytes,
                                            box.axes[1].destination_stride * kBytes);
  if (lead == 0) return box;
  if (t.piece_before) {
    box.source_base += lead * rows.source_stride;
    box.destination_base += lead;
    rows.count -= lead;
  }
  if (t.piece_after) rows.count += lead;
  return box;
}

// The lowest destination element a box writes (a reversed view's axes move backwards).
int64_t first_offset(const StridedBox& box) {
  int64_t first = box.destination_base;
  for (const StridedAxis& a : box.axes)
    first += std::min<int64_t>(0, (a.count - 1) * a.destination_stride);
  return first;
}

int64_t last_offset(const StridedBox& box) {
  int64_t last = box.destination_base;
  for (const StridedAxis& a : box.axes) last += (a.count - 1) * a.destination_stride;
  return last;
}

// The first axis a kernel lets threads split (the axes below it form the kernel's unit).
std::size_t first_splittable_axis(const CopyKernel& kernel, bool fill) {
  if (fill) return 0;
  switch (kernel.kind) {
    case KernelKind::kTranspose:
      return kernel.grouped ? 4 : 0;
    case KernelKind::kPackBits:
      return 2;
    default:
      return 0;
  }
}

// Splits a box into pieces of about kTaskBytes along the axis that moves furthest in the source
// (in the destination for fills): each piece then reads (writes) one compact band, and a
// transpose keeps whole source rows per piece. A run may be cut only when it is the sole axis.
void split_into_tasks(const StridedBox& box, const CopyKernel& kernel, bool fill, int bits,
                      const ChosenVariant& chosen, std::vector<Task>& tasks) {
  const int64_t bytes = std::max<int64_t>(1, box.elements() * bits / 8);
  std::size_t first = first_splittable_axis(kernel, fill);
  if (!fill && kernel.kind == KernelKind::kRuns && box.axes.size() > 1) first = 1;
  std::optional<std::size_t> axis;
  for (std::size_t k = first; k < box.axes.size(); ++k) {
    const StridedAxis& a = box.axes[k];
    // Magnitudes: a reversed view's axes move backwards but just as far.
    const auto moves = [&](const StridedAxis& x) {
      return std::abs(fill ? x.destination_stride : x.source_stride);
    };
    if (a.count > 1 && (!axis || moves(a) > moves(box.axes[*axis]))) {
      axis = k;
    }
  }
  const int64_t count = axis ? box.axes[*axis].count : 1;
  // A staged transpose (staged_transpose.h) splits its source rows: pieces of whole 16-row tiles,
  // at least 128 rows (one band on AVX2 hosts, four on AVX-512 ones) where there are enough:
  // 64-row pieces ran slower than 128-row ones (docs/notes/2026-11-23-staged-transposes.md).
  const bool staged = !fill && kernel.kind == KernelKind::kTranspose && !kernel.grouped &&
                      kernel.streaming && axis == 0u;
  // A grouped transpose split along axis 6: pieces of at least 16 steps, but 4 pieces where
  // there are 4 steps (Fortran order into T(8,128): steps of 128 columns): smaller pieces start
  // their prefetches afresh too often, one piece leaves a second thread idle
  // (docs/notes/2026-11-25-fortran-destinations-whole-lines.md).
  // Where that axis is a band of 16-row tiles along the destination rows (T(8,128) into NumPy's
  // Fortran order), each step writes 64 bytes of each destination row: pieces of at least 64
  // steps, runs of 4 KiB. Where a piece starts and ends, a row's line is written in two parts
  // unless the destination is line-aligned (NumPy's start 16 bytes in), so fewer, longer pieces
  // write fewer split lines; line-aligned destinations do not care
  // (docs/notes/2026-11-24-zen5-fewer-source-rows.md for staged writes,
  // docs/notes/2026-11-25-fortran-destinations-whole-lines.md for realigned ones).
  const bool banded =
      !fill && kernel.kind == KernelKind::kTranspose && kernel.grouped && axis == 6u;
  const bool along_rows = banded && box.axes[6].destination_stride == 16;
  const int64_t unit = staged ? 16 : 1;
  const int64_t units = (count + unit - 1) / unit;
  const int64_t most = staged       ? std::max<int64_t>(1, count / 128)
                       : along_rows ? std::max<int64_t>(1, count / 64)
                       : banded     ? std::max(std::min<int64_t>(count, 4), count / 16)
                                    : count;
  const int64_t pieces = std::clamp<int64_t>(bytes / (kTaskBytes * kernel.variant.piece_mib), 1,
                                             std::min(most, kMostPieces));
  // Staged pieces move their shared ends by up to 15 rows when they run (on_lines): only when
  // every piece is longer than that.
  const auto piece_begin = [&](int64_t p) { return std::min(count, units * p / pieces * unit); };
  bool line_pieces = staged && kernel.source_bits == 32 && pieces > 1;
  for (int64_t p = 0; p < pieces; ++p) {
    line_pieces = line_pieces && piece_begin(p + 1) - piece_begin(p) >= 16;
  }
  for (int64_t p = 0; p < pieces; ++p) {
    Task t{box, kernel, fill, chosen.origin, chosen.pitch};
    if (pieces > 1) {
      StridedAxis& a = t.box.axes[*axis];
      const int64_t begin = piece_begin(p);
      const int64_t end = piece_begin(p + 1);
      t.box.source_base += begin * a.source_stride;
      t.box.destination_base += begin * a.destination_stride;
      a.count = end - begin;
      t.staged_piece = line_pieces;
      t.piece_before = begin > 0;
      t.piece_after = end < count;
    }
    tasks.push_back(std::move(t));
  }
}

// Sub-byte destinations share bytes between neighbouring elements: threads may only split work
// whose destination byte ranges are disjoint.
bool byte_ranges_disjoint(const std::vector<Task>& tasks, int bits) {
  std::vector<std::pair<int64_t, int64_t>> ranges;
  for (const Task& t : tasks) {
    ranges.emplace_back(t.box.destination_base * bits / 8,
                        (last_offset(t.box) * bits + bits - 1) / 8);
  }
  std::sort(ranges.begin(), ranges.end());
  for (std::size_t i = 1; i < ranges.size(); ++i) {
    if (ranges[i].first <= ranges[i - 1].second) return false;
  }
  return true;
}

void check_same_array(const IndexMap& source, const IndexMap& destination) {
  if (source.dims() != destination.dims()) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("cannot convert between arrays of different dimensions [{}] and [{}]",
                            fmt::join(source.dims(), ","), fmt::join(destination.dims(), ",")));
  }
  const int a = source.element_bits();
  const int b = destination.element_bits();
  // E(n) is an element's storage width; the value sits in its low bits, the rest is zero or the
  // sign (XLA counts n bits per element: ShapeUtil::ByteSizeOfElements; TPUs print pred as
  // `pred[..]{..:T(8,128)E(32)}`). Elements move through a 64-bit word whenever their width
  // changes or is not whole bytes, so wider storage may only be copied unchanged, byte for byte;
  // anything else is refused here, before a kernel could read or write past that word.
  const bool byte_copy = a == b && a % 8 == 0;
  if (!byte_copy && std::max(a, b) > 64) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("cannot convert {}-bit elements to {}-bit elements: element storage "
                            "wider than 64 bits (E(n) with n > 64) can only be copied unchanged, "
                            "in whole bytes",
                            a, b));
  }
  // Narrower or wider whole-byte storage (pred E(8) <-> E(32), what XLA prints for TPU preds) is
  // copied through that word too: the value, in the low bits, is kept; the rest is zero or the
  // sign (RelayoutOptions::sign_extend).
}

void copy_element(const std::byte* source, int64_t from, int source_bits, std::byte* destination,
                  int64_t to, int destination_bits, bool sign_extend) {
  if (source_bits == destination_bits && source_bits % 8 == 0) {
    const int bytes = source_bits / 8;
    std::memcpy(destination + to * bytes, source + from * bytes, static_cast<std::size_t>(bytes));
    return;
  }
  const uint64_t v = read_element(source, from, source_bits);
  write_element(destination, to, destination_bits,
                convert_width(v, source_bits, destination_bits, sign_extend));
}

}  // namespace

struct RelayoutPlan::Implementation {
  IndexMap source;
  IndexMap destination;
  RelayoutOptions options;
  int threads = 1;
  bool general = false;          // no common refinement: walk both maps element by element
  bool fill_everything = false;  // destination without digit form: fill the buffer, then copy
  bool parallel = true;
  bool huge_pages = false;  // some task's variant advises 2 MiB pages for both buffers
  std::vector<Task> tasks;

  Implementation(const IndexMap& from, const IndexMap& to, const RelayoutOptions& chosen)
      : source(from), destination(to), options(chosen) {}

  void run_general(const std::byte* from, std::byte* to) const {
    const int sb = source.element_bits();
    const int db = destination.element_bits();
    LogicalWalker a(source);
    LogicalWalker b(destination);
    for (; !a.done(); a.next(), b.next()) {
      copy_element(from, a.offset(), sb, to, b.offset(), db, options.sign_extend);
    }
  }

  // A sub-byte layout's last byte may hold bits of no element: zero them (Python's fresh
  // buffers have them zero; a reused file or buffer must not keep stale ones).
  void clear_bits_past_last_element(std::byte* to) const {
    const int64_t used_bits = destination.size_elements() * destination.element_bits();
    const int used = static_cast<int>(used_bits % 8);
    if (used == 0) return;
    std::byte& last = to[destination.size_bytes() - 1];
    last &= static_cast<std::byte>((1u << used) - 1);
  }

  // The task of the box with the most elements (nullptr without one).
  const Task* main_task() const {
    const Task* main = nullptr;
    for (const Task& t : tasks) {
      if (!t.fill && (main == nullptr || t.box.elements() > main->box.elements())) main = &t;
    }
    return main;
  }

  void run_task(const Task& t, const std::byte* from, std::byte* to) const {
    if (t.fill) {
      fill_box(t.box, destination.element_bits(), options.fill_bits, to);
    } else {
      copy_box(t.staged_piece ? on_lines(t, to) : t.box, t.kernel, from, to);
    }
  }
};

RelayoutPlan::RelayoutPlan(std::shared_ptr<const Implementation> implementation)
    : implementation_(std::move(implementation)) {}

int64_t RelayoutPlan::source_bytes() const {
  return implementation_->source.size_bytes();
}
int64_t RelayoutPlan::destination_bytes() const {
  return implementation_->destination.size_bytes();
}
int RelayoutPlan::threads() const {
  return implementation_->threads;
}

std::string RelayoutPlan::describe() const {
  const Implementation& p = *implementation_;
  std::string out;
  if (p.fill_everything) out += "fill the whole destination (no digit form)\n";
  if (p.general) out += "general walk (no common refinement)\n";
  // Pieces cut from one box read alike: a run of equal lines is printed once, with its count
  // (a 1 GiB transpose has 64 pieces).
  std::string line;
  int64_t repeats = 0;
  const auto flush = [&] {
    if (repeats > 0)
      out += repeats == 1 ? line + "\n" : fmt::format("{} ({} pieces)\n", line, repeats);
  };
  for (const Task& t : p.tasks) {
    std::string next =
        t.fill ? fmt::format("fill {} elements", t.box.elements()) : describe_box(t.box, t.kernel);
    if (!t.fill && t.kernel.kernel_class != KernelClass::kNone) {
      next += fmt::format(", variant {} ({})",
                          variant_name(t.kernel.kernel_class, t.kernel.variant), t.origin);
    }
    if (next == line) {
      ++repeats;
      continue;
    }
    flush();
    line = std::move(next);
    repeats = 1;
  }
  flush();
  return out;
}

void RelayoutPlan::execute(std::span<const std::byte> source,
                           std::span<std::byte> destination) const {
  execute_pieces(source, destination, 0, piece_count());
}

int64_t RelayoutPlan::piece_count() const {
  // Piece 0 holds the whole-buffer work (fill, general walk) when there are no tasks.
  return std::max<int64_t>(1, static_cast<int64_t>(implementation_->tasks.size()));
}

int64_t RelayoutPlan::piece_bytes(int64_t piece) const {
  const Implementation& p = *implementation_;
  if (p.tasks.empty()) return piece == 0 ? p.destination.size_bytes() : 0;
  if (piece < 0 || piece >= static_cast<int64_t>(p.tasks.size())) return 0;
  const Task& t = p.tasks[static_cast<std::size_t>(piece)];
  return std::max<int64_t>(1, t.box.elements() * p.destination.element_bits() / 8);
}

int64_t RelayoutPlan::destination_settled_bytes(int64_t piece) const {
  const Implementation& p = *implementation_;
  const int64_t all = p.destination.size_bytes();
  if (piece >= static_cast<int64_t>(p.tasks.size())) return piece >= piece_count() ? all : 0;
  if (piece <= 0) return 0;  // piece 0's call also runs the whole-buffer fill and general walk
  int64_t lowest = p.destination.size_elements();
  for (std::size_t i = static_cast<std::size_t>(piece); i < p.tasks.size(); ++i)
    lowest = std::min(lowest, first_offset(p.tasks[i].box));
  // Elements share bytes below 8 bits; the last byte's spare bits are cleared by the last piece.
  return std::clamp<int64_t>(lowest * p.destination.element_bits() / 8, 0, all);
}

void RelayoutPlan::execute_pieces(std::span<const std::byte> source,
                                  std::span<std::byte> destination, int64_t first,
                                  int64_t end) const {
  const Implementation& p = *implementation_;
  if (static_cast<int64_t>(source.size()) < p.source.size_bytes()) {
    throw Error(ErrorKind::kBufferSize,
                fmt::format("the source buffer holds {} bytes but its layout needs {}",
                            source.size(), p.source.size_bytes()));
  }
  if (static_cast<int64_t>(destination.size()) < p.destination.size_bytes()) {
    throw Error(ErrorKind::kBufferSize,
                fmt::format("the destination buffer holds {} bytes but its layout needs {}",
                            destination.size(), p.destination.size_bytes()));
  }
  first = std::max<int64_t>(first, 0);
  end = std::min<int64_t>(end, static_cast<int64_t>(p.tasks.size()));
  const std::byte* from = source.data();
  std::byte* to = destination.data();
  if (first == 0 && p.huge_pages) {
    advise_huge_pages(source.data(), p.source.size_bytes());
    advise_huge_pages(destination.data(), p.destination.size_bytes());
  }
  if (first == 0) {
    if (p.fill_everything) {
      fill_box({0, 0, {{p.destination.size_elements(), 0, 1}}}, p.destination.element_bits(),
               p.options.fill_bits, to);
    }
    if (p.general) p.run_general(from, to);
  }
  const int64_t count = std::max<int64_t>(0, end - first);
  const int workers = p.parallel ? static_cast<int>(std::min<int64_t>(p.threads, count)) : 1;
  if (workers <= 1) {
    for (int64_t i = first; i < end; ++i)
      p.run_task(p.tasks[static_cast<std::size_t>(i)], from, to);
  } else {
    for_each_piece(workers - 1, count, [&](int64_t i) {
      p.run_task(p.tasks[static_cast<std::size_t>(first + i)], from, to);
    });
  }
  if (end >= static_cast<int64_t>(p.tasks.size())) p.clear_bits_past_last_element(to);
}

namespace {

// The plan over two sides given by their maps and the digit forms the common refinement uses
// (the maps' own, or a strided array's). A strided destination is an array without padding
// whose gaps belong to other data: nothing but its elements is written.
RelayoutPlan build_plan(const IndexMap& source, const DigitForm* source_form,
                        const IndexMap& destination, const DigitForm* destination_form,
                        bool strided_destination, RelayoutOptions options, bool shuffle,
                        const ClassVariant* forced_value = nullptr) {
  check_same_array(source, destination);
  // Bits are counted in 64-bit integers: an array of 2^58 f32 elements overflowed the sum of the
  // bytes written (fuzz/seeds/layout_diff/huge_array), and no host could hold it anyway.
  if (std::max(source.size_bytes(), destination.size_bytes()) > kMaxPlannedBytes) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("the buffers are larger than {} bytes, more than any host holds",
                            kMaxPlannedBytes));
  }
  auto p = std::make_shared<RelayoutPlan::Implementation>(source, destination, options);
  p->threads = options.threads > 0
                   ? options.threads
                   : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  const int sb = source.element_bits();
  const int db = destination.element_bits();
  std::optional<std::vector<StridedBox>> boxes;
  if (source_form != nullptr && destination_form != nullptr) {
    boxes = data_boxes(*source_form, *destination_form, source.dims());
  }
  int64_t written = destination.size_bytes();
  if (boxes) {
    written = 0;
    for (const StridedBox& box : *boxes) written += box.elements() * db / 8;
  }
  const Streaming streaming =
      choose_streaming(destination.size_bytes(), written, p->threads, options);
  VariantChooser chooser(options, p->threads, destination.size_bytes(),
                         size_class_of(std::max(source.size_bytes(), written)), forced_value);
  p->general = !boxes.has_value();
  if (boxes) {
    for (std::size_t i = 0; i < boxes->size(); ++i) {
      if (auto rest = split_off_unpaired_tiles((*boxes)[i], sb, db, streaming.kernels)) {
        boxes->insert(boxes->begin() + static_cast<std::ptrdiff_t>(i) + 1, std::move(*rest));
      }
      StridedBox& box = (*boxes)[i];
      CopyKernel kernel = choose_copy_kernel(box, sb, db, options.sign_extend, streaming.kernels);
      kernel.kernel_class = kernel_class(box, kernel);
      const ChosenVariant chosen =
          chooser.choose(kernel.kernel_class, sb, pitch_class(box, kernel));
      kernel.variant = chosen.variant;
      kernel.variant.shuffle = shuffle;
      apply_variant(box, kernel, streaming.runs);
      p->huge_pages = p->huge_pages || kernel.variant.huge_pages;
      split_into_tasks(box, kernel, false, db, chosen, p->tasks);
    }
  }
  if (!options.keep_padding && !strided_destination) {
    if (destination_form == nullptr) {
      p->fill_everything = true;
    } else {
      for (const StridedBox& box : padding_boxes(destination))
        split_into_tasks(box, {}, true, db, {}, p->tasks);
    }
  }
  // The general walk runs before the tasks on the calling thread, so tasks never race with it.
  p->parallel = db % 8 == 0 || byte_ranges_disjoint(p->tasks, db);
  return RelayoutPlan(std::move(p));
}

}  // namespace

RelayoutPlan plan(const IndexMap& source, const IndexMap& destination, RelayoutOptions options) {
  return build_plan(source, source.digit_form(), destination, destination.digit_form(), false,
                    options, true);
}

RelayoutPlan plan(const StridedArray& source, const IndexMap& destination,
                  RelayoutOptions options) {
  const StridedOperand from = strided_operand(source, StridedUse::kSource);
  return build_plan(from.map, &from.form, destination, destination.digit_form(), false, options,
                    true);
}

RelayoutPlan plan(const IndexMap& source, const StridedArray& destination,
                  RelayoutOptions options) {
  const StridedOperand to = strided_operand(destination, StridedUse::kDestination);
  return build_plan(source, source.digit_form(), to.map, &to.form, true, options, true);
}

struct PlanAccess {
  static const RelayoutPlan::Implementation& of(const RelayoutPlan& plan) {
    return *plan.implementation_;
  }
};

KernelClass main_kernel_class(const RelayoutPlan& plan) {
  const Task* main = PlanAccess::of(plan).main_task();
  return main == nullptr ? KernelClass::kNone : main->kernel.kernel_class;
}

std::string main_pitch(const RelayoutPlan& plan) {
  const Task* main = PlanAccess::of(plan).main_task();
  return main == nullptr ? "" : main->pitch;
}

std::string main_variant(const RelayoutPlan& plan) {
  const Task* main = PlanAccess::of(plan).main_task();
  if (main == nullptr || main->kernel.kernel_class == KernelClass::kNone) return "";
  return fmt::format("{} ({})", variant_name(main->kernel.kernel_class, main->kernel.variant),
                     main->origin);
}

bool main_streams(const RelayoutPlan& plan) {
  const Task* main = PlanAccess::of(plan).main_task();
  return main != nullptr && main->kernel.streaming;
}

RelayoutPlan plan_candidate(const IndexMap& source, const IndexMap& destination, int threads,
                            const ClassVariant& forced) {
  RelayoutOptions options;
  options.threads = threads;
  options.planner = PlannerMode::kEstimate;  // a plan made to be measured measures nothing
  return build_plan(source, source.digit_form(), destination, destination.digit_form(), false,
                    options, true, &forced);
}

RelayoutPlan plan_without_shuffle(const IndexMap& source, const IndexMap& destination,
                                  RelayoutOptions options) {
  return build_plan(source, source.digit_form(), destination, destination.digit_form(), false,
                    options, false);
}

}  // namespace tessera::relayout
