// The era-2026 advice (device_rewrites.h): candidates sized with libtpu_device_bytes (no layout
// is built until an offer is kept), ranked, grouped, and only the kept ones printed.
#include "tessera/explain/device_rewrites.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <numeric>
#include <set>
#include <string>
#include <utility>

#include "tessera/checked_arithmetic.h"
#include "tessera/error.h"
#include "tessera/explain/tpu_compiler_model.h"
#include "tessera/xla/notation.h"

namespace tessera::explain {
namespace {

constexpr int64_t kLanes = 128;
// Every grouping of neighbouring dims is 2^(rank-1) reshapes: 128 at rank 8. Above it, the
// merges of one pair only (rank - 1 of them), so a rank-1000 hostile shape stays cheap.
constexpr std::size_t kMaxRankForGroupings = 8;
constexpr std::size_t kMaxRankForPads = 8;
// The multiples people pad to: 8 sublanes and 128 lanes, the TPU tile T(8,128), and 2.
constexpr std::array<int64_t, 3> kGranules = {2, 8, 128};

enum class Reshape { kNone, kFlatten, kRowsOfLanes, kDims };
enum class PackBits { kNone, kFlat, kLastAxis };

// One rewrite of x: pad one dim, transpose, pack bits, reshape, in that order; and the array it
// makes.
struct Rewrite {
  const char* kind = "reshape";
  ElementType type = ElementType::kF32;
  std::vector<int64_t> dims;
  int64_t bytes = 0;
  int64_t pad_dim = -1;  // the dim padded, to pad_to (per device when sharded)
  int64_t pad_to = 0;
  std::vector<int64_t> axes;  // jnp.transpose's, most major first; empty: none
  PackBits packbits = PackBits::kNone;
  Reshape reshape = Reshape::kNone;
};

int kind_rank(const char* kind) {
  const std::string_view k = kind;
  if (k == "reshape") return 0;
  if (k == "reorder") return 1;
  if (k == "pad") return 2;
  return 3;
}

int64_t product(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n = checked_multiply(n, d, "element count");
  return n;
}

// `dims` with the neighbours joined where bit i of `mask` joins dims i and i+1.
std::vector<int64_t> grouped(const std::vector<int64_t>& dims, uint64_t mask) {
  std::vector<int64_t> out;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (i > 0 && (mask >> (i - 1)) & 1) {
      out.back() = checked_multiply(out.back(), dims[i], "merged dimension");
    } else {
      out.push_back(dims[i]);
    }
  }
  return out;
}

// The masks of the groupings tried, fewest merges first (of two merges of one size, the one
// that changes less is the offer); neither the identity nor the full flatten.
std::vector<uint64_t> grouping_masks(std::size_t rank) {
  std::vector<uint64_t> masks;
  if (rank < 3) return masks;
  const std::size_t boundaries = rank - 1;
  if (rank > kMaxRankForGroupings) {
    for (std::size_t i = 0; i < boundaries; ++i) masks.push_back(uint64_t{1} << i);
    return masks;
  }
  const uint64_t all = (uint64_t{1} << boundaries) - 1;
  for (uint64_t mask = 1; mask < all; ++mask) masks.push_back(mask);
  std::stable_sort(masks.begin(), masks.end(), [](uint64_t a, uint64_t b) {
    return std::popcount(a) < std::popcount(b);
  });
  return masks;
}

bool is_identity(const std::vector<int64_t>& axes) {
  for (std::size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

std::vector<int64_t> permuted(const std::vector<int64_t>& dims, const std::vector<int64_t>& axes) {
  std::vector<int64_t> out;
  for (int64_t a : axes) out.push_back(dims[static_cast<std::size_t>(a)]);
  return out;
}

class Candidates {
 public:
  Candidates(Target target, PredStorage pred) : target_(target), pred_(pred) {}

  // Adds `r` unless an array of its type and dims is already a candidate (or `r` overflows).
  void add(Rewrite r) {
    if (!seen_.insert({r.type, r.dims}).second) return;
    add_sized(std::move(r));
  }
  // Marks an array as already there: the input itself (a reshape to its own dims is no change).
  void exclude(ElementType type, const std::vector<int64_t>& dims) { seen_.insert({type, dims}); }
  void add_sized(Rewrite r) {
    try {
      r.bytes = libtpu_device_bytes(r.type, r.dims, target_, pred_);
    } catch (const Error&) {
      return;  // a new array whose size overflows is no fix
    }
    list_.push_back(std::move(r));
  }
  int64_t bytes(ElementType type, const std::vector<int64_t>& dims) const {
    return libtpu_device_bytes(type, dims, target_, pred_);
  }
  std::vector<Rewrite>& list() { return list_; }

 private:
  Target target_;
  PredStorage pred_;
  std::set<std::pair<ElementType, std::vector<int64_t>>> seen_;
  std::vector<Rewrite> list_;
};

Rewrite reshaped(ElementType type, std::vector<int64_t> dims, Reshape how) {
  Rewrite r;
  r.type = type;
  r.dims = std::move(dims);
  r.reshape = how;
  return r;
}

// The reshapes of an array of `dims` (after `axes` when given): flatten, rows of 128 lanes, every
// grouping of neighbours.
void add_reshapes(Candidates& out, ElementType type, const std::vector<int64_t>& dims,
                  const std::vector<int64_t>& axes) {
  const int64_t elements = product(dims);
  auto with_axes = [&](Rewrite r) {
    r.axes = axes;
    out.add(std::move(r));
  };
  if (!dims.empty()) with_axes(reshaped(type, {elements}, Reshape::kFlatten));
  if (elements % kLanes == 0 && elements > 0) {
    with_axes(reshaped(type, {elements / kLanes, kLanes}, Reshape::kRowsOfLanes));
  }
  const std::vector<int64_t> order = axes.empty() ? dims : permuted(dims, axes);
  for (uint64_t mask : grouping_masks(order.size())) {
    with_axes(reshaped(type, grouped(order, mask), Reshape::kDims));
  }
}

// jnp.transpose for an array whose order the program fixed: the axes that put the compiler's
// minor dims last, so the new array is stored in the order it is written.
void add_transpose(Candidates& out, const xla::Shape& shape, Target target, PredStorage pred,
                   int64_t size_bytes) {
  const std::vector<int64_t>& dims = shape.dimensions;
  if (dims.size() < 2 || out.bytes(shape.element_type, dims) >= size_bytes) return;
  const std::vector<int64_t> m2m = libtpu_minor_to_major(shape.element_type, dims, target, pred);
  std::vector<int64_t> axes(m2m.rbegin(), m2m.rend());
  if (is_identity(axes)) std::swap(axes[0], axes[1]);  // any other order has the same bytes
  Rewrite r;
  r.kind = "reorder";
  r.type = shape.element_type;
  r.dims = permuted(dims, axes);
  r.axes = std::move(axes);
  out.add_sized(std::move(r));
}

// pred as bits: jnp.packbits(x) (flattened) and, from rank 2, along the last axis.
void add_packbits(Candidates& out, const xla::Shape& shape) {
  if (shape.element_type != ElementType::kPred || shape.dimensions.empty()) return;
  Rewrite flat;
  flat.kind = "storage";
  flat.type = ElementType::kU8;
  flat.dims = {ceil_divide(product(shape.dimensions), 8)};
  flat.packbits = PackBits::kFlat;
  out.add(flat);
  if (shape.dimensions.size() < 2) return;
  Rewrite last = flat;
  last.dims = shape.dimensions;
  last.dims.back() = ceil_divide(last.dims.back(), 8);
  last.packbits = PackBits::kLastAxis;
  out.add(std::move(last));
}

// For each dim and granule, the best of the padded array and its reshapes, when below `beat`.
void add_pads(Candidates& out, const xla::Shape& shape, Target target, PredStorage pred,
              int64_t beat) {
  const std::vector<int64_t>& dims = shape.dimensions;
  if (dims.empty() || dims.size() > kMaxRankForPads) return;
  const ElementType type = shape.element_type;
  for (int64_t k : shape.layout.minor_to_major) {  // most minor first: the nearer the tiles
    const auto at = static_cast<std::size_t>(k);
    int64_t previous = dims[at];
    for (int64_t granule : kGranules) {
      try {
        const int64_t n = round_up(dims[at], granule, "padded dimension");
        if (n == previous) continue;
        previous = n;
        std::vector<int64_t> padded = dims;
        padded[at] = n;
        // No layout holds fewer bytes than the data: skip what cannot win.
        if (bytes_for_bits(product(padded), bit_width(type)) >= beat) continue;
        // The pad alone first, so that it wins a tie with a reshape: the shorter change.
        Candidates forms(target, pred);
        forms.add(reshaped(type, padded, Reshape::kNone));
        add_reshapes(forms, type, padded, {});
        const std::vector<Rewrite>& options = forms.list();
        const auto best = std::min_element(options.begin(), options.end(),
                                           [](auto& a, auto& b) { return a.bytes < b.bytes; });
        if (best == options.end() || best->bytes >= beat) continue;
        Rewrite pad = *best;
        pad.kind = "pad";
        pad.pad_dim = k;
        pad.pad_to = n;
        out.add_sized(std::move(pad));
      } catch (const Error&) {
        // A pad whose size overflows int64 is no fix; the others still are.
      }
    }
  }
}

// "jnp.pad(x, ((0, 0), (0, 28), (0, 0)))": `amount` more elements at the end of dim k.
std::string jnp_pad(std::size_t rank, std::size_t k, int64_t amount) {
  std::vector<std::string> widths(rank, "(0, 0)");
  widths[k] = fmt::format("(0, {})", amount);
  if (rank == 1) return fmt::format("jnp.pad(x, ({},))", widths[0]);
  return fmt::format("jnp.pad(x, ({}))", fmt::join(widths, ", "));
}

std::string reshape_text(const Rewrite& r) {
  switch (r.reshape) {
    case Reshape::kNone:
      return "";
    case Reshape::kFlatten:
      return ".reshape(-1)";
    case Reshape::kRowsOfLanes:
      return fmt::format(".reshape(-1, {})", kLanes);
    case Reshape::kDims:
      return fmt::format(".reshape({})", fmt::join(r.dims, ", "));
  }
  return "";
}

// The change as Python a JAX user pastes: one expression, with what cannot be one (the global
// and the per-shard part of a sharded array's fix) in a comment.
std::string change_of(const Rewrite& r, const xla::Shape& shape, const ShardSplit& split) {
  const bool sharded = is_sharded(split);
  std::string global = "x";
  std::string note;
  if (r.pad_dim >= 0) {
    const auto k = static_cast<std::size_t>(r.pad_dim);
    const int64_t amount =
        sharded ? checked_multiply(r.pad_to, split.shards[k], "padded dimension") -
                      split.global_dims[k]
                : r.pad_to - shape.dimensions[k];
    global = jnp_pad(shape.dimensions.size(), k, amount);
    if (sharded) note = fmt::format("every shard {} along dim {}", r.pad_to, k);
  }
  if (!r.axes.empty()) global = fmt::format("jnp.transpose({}, {})", global, python_tuple(r.axes));
  std::string local;  // what each shard does, or the rest of the expression
  if (r.packbits == PackBits::kFlat) local = "jnp.packbits(x)";
  if (r.packbits == PackBits::kLastAxis) local = "jnp.packbits(x, axis=-1)";
  local += reshape_text(r);
  if (!sharded) {
    if (local.starts_with("jnp.packbits")) return local;  // packbits is never combined
    return global + local;
  }
  if (local.empty()) return note.empty() ? global : fmt::format("{}  # {}", global, note);
  if (local.front() == '.') local = "x" + local;
  if (global == "x") return fmt::format("{}  # per shard, e.g. inside shard_map", local);
  return fmt::format("{}  # {}then per shard, e.g. inside shard_map: {}", global,
                     note.empty() ? "" : note + "; ", local);
}

}  // namespace

std::vector<ProgramFix> device_rewrites(const xla::Shape& shape, int64_t size_bytes,
                                        Target target, PredStorage pred, std::size_t limit,
                                        const ShardSplit& split) {
  target = resolve_target(target, XlaEra::k2026);
  const std::vector<int64_t>& dims = shape.dimensions;
  if (dims.empty() || std::find(dims.begin(), dims.end(), 0) != dims.end()) return {};
  Candidates candidates(target, pred);
  candidates.exclude(shape.element_type, dims);
  try {
    add_reshapes(candidates, shape.element_type, dims, {});
    const std::vector<int64_t>& m2m = shape.layout.minor_to_major;
    if (!std::is_sorted(m2m.rbegin(), m2m.rend())) {
      // Neighbours in memory: the merges that move no data, after a transpose that is a bitcast.
      add_reshapes(candidates, shape.element_type, dims, {m2m.rbegin(), m2m.rend()});
    }
    add_transpose(candidates, shape, target, pred, size_bytes);
    add_packbits(candidates, shape);
  } catch (const Error&) {
    // The element count overflows int64: no reshape of it exists.
  }
  int64_t beat = size_bytes;
  for (const Rewrite& r : candidates.list()) beat = std::min(beat, r.bytes);
  add_pads(candidates, shape, target, pred, beat);

  std::vector<Rewrite>& list = candidates.list();
  std::erase_if(list, [&](const Rewrite& r) { return r.bytes >= size_bytes; });
  std::stable_sort(list.begin(), list.end(), [](const Rewrite& a, const Rewrite& b) {
    if (a.bytes != b.bytes) return a.bytes < b.bytes;
    return kind_rank(a.kind) < kind_rank(b.kind);
  });
  auto layout_of = [&](const Rewrite& r) {
    return xla::print_shape(libtpu_device_shape(r.type, r.dims, target, pred));
  };
  std::vector<ProgramFix> fixes;
  for (std::size_t i = 0; i < list.size();) {
    std::size_t end = i + 1;
    while (end < list.size() && list[end].bytes == list[i].bytes &&
           std::string_view(list[end].kind) == list[i].kind) {
      ++end;
    }
    if (fixes.size() < limit) {
      ProgramFix fix{list[i].kind,    layout_of(list[i]),
                     list[i].bytes,   size_bytes - list[i].bytes,
                     change_of(list[i], shape, split), {}};
      for (std::size_t j = i + 1; j < end; ++j) fix.alternatives.push_back(layout_of(list[j]));
      fixes.push_back(std::move(fix));
    }
    i = end;
  }
  return fixes;
}

}  // namespace tessera::explain
