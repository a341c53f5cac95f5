// The era-2026 advice (device_rewrites.h): candidates sized with libtpu_device_bytes (no layout
// is built until an offer is kept), ranked, grouped, and only the kept ones printed.
#include "tessera/explain/device_rewrites.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <numeric>
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

enum class Reshape { kNone, kFlatten, kRowsOfLanes, kDims };
enum class PackBits { kNone, kFlat, kLastAxis };

// Which jnp.transpose comes first: none, the one to the dims' memory order (a bitcast: the
// merges after it move no data), or the one that saves (add_transpose).
enum class Axes { kNone, kMemoryOrder, kSaving };

// One rewrite of x: transpose, pack bits, reshape, in that order; and the array it makes. Small
// on purpose: dozens are sized per array explained, and few are printed.
struct Rewrite {
  const char* kind = "reshape";
  ElementType type = ElementType::kF32;
  std::vector<int64_t> dims;
  int64_t bytes = 0;
  Axes axes = Axes::kNone;
  PackBits packbits = PackBits::kNone;
  Reshape reshape = Reshape::kNone;
};

int kind_rank(const char* kind) {
  const std::string_view k = kind;
  if (k == "reshape") return 0;
  if (k == "reorder") return 1;
  return 2;
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

// Calls visit(mask) for the groupings tried, fewest merges first and, of as many, the most minor
// first (of two that save the same, the one tried first is the offer: an expert merges the small
// minor dim into its neighbour); neither the identity nor the full flatten.
template <class Visit>
void for_each_grouping(std::size_t rank, Visit visit) {
  if (rank < 3) return;
  const std::size_t boundaries = rank - 1;
  if (rank > kMaxRankForGroupings) {
    for (std::size_t i = boundaries; i-- > 0;) visit(uint64_t{1} << i);
    return;
  }
  const uint64_t all = (uint64_t{1} << boundaries) - 1;
  for (int merges = 1; merges < static_cast<int>(boundaries); ++merges) {
    for (uint64_t mask = all - 1; mask > 0; --mask) {  // bit i joins dims i, i+1: high is minor
      if (std::popcount(mask) == merges) visit(mask);
    }
  }
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

// The rewrites sized so far. Two rewrites that make arrays of one type and dims are one offer
// (the later one dropped when the offers are printed: they have the same bytes and kind).
class Candidates {
 public:
  Candidates(Target target, PredStorage pred, const std::vector<int64_t>& input_dims)
      : target_(target), pred_(pred), input_dims_(input_dims) {}

  // Adds `r` sized, unless it makes the input's own dims (no change) or its size overflows.
  void add(Rewrite r) {
    if (r.dims == input_dims_ && r.axes != Axes::kSaving) return;
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
  Target target() const { return target_; }
  PredStorage pred() const { return pred_; }
  std::vector<Rewrite>& list() { return list_; }

 private:
  Target target_;
  PredStorage pred_;
  const std::vector<int64_t>& input_dims_;
  std::vector<Rewrite> list_;
};

Rewrite reshaped(ElementType type, std::vector<int64_t> dims, Reshape how, Axes axes) {
  Rewrite r;
  r.type = type;
  r.dims = std::move(dims);
  r.reshape = how;
  r.axes = axes;
  return r;
}

// The reshapes of an array of `dims` (in memory order when `axes` says so): every grouping of
// neighbours, fewest merges first, then the flatten, then rows of 128 lanes. Of two that save
// the same, the one tried first is the offer: the smallest change to the program
// (s32[2048,1,128,128,4]{4,3,2,1,0} -> x.reshape(2048, 1, 128, 512), not x.reshape(-1)).
void add_reshapes(Candidates& out, ElementType type, const std::vector<int64_t>& dims,
                  Axes axes = Axes::kNone) {
  const int64_t elements = product(dims);
  for_each_grouping(dims.size(), [&](uint64_t mask) {
    out.add(reshaped(type, grouped(dims, mask), Reshape::kDims, axes));
  });
  if (!dims.empty()) out.add(reshaped(type, {elements}, Reshape::kFlatten, axes));
  if (elements % kLanes == 0 && elements > 0) {
    out.add(reshaped(type, {elements / kLanes, kLanes}, Reshape::kRowsOfLanes, axes));
  }
}

// The axes of jnp.transpose for an array whose order the program fixed: those that put the
// compiler's minor dims last, so the new array is stored in the order it is written (any other
// order but the identity has the same bytes).
std::vector<int64_t> saving_axes(const xla::Shape& shape, Target target, PredStorage pred) {
  const std::vector<int64_t> m2m =
      libtpu_minor_to_major(shape.element_type, shape.dimensions, target, pred);
  std::vector<int64_t> axes(m2m.rbegin(), m2m.rend());
  if (is_identity(axes)) std::swap(axes[0], axes[1]);
  return axes;
}

void add_transpose(Candidates& out, const xla::Shape& shape, const std::vector<int64_t>& axes,
                   int64_t size_bytes) {
  if (axes.empty() || out.bytes(shape.element_type, shape.dimensions) >= size_bytes) return;
  Rewrite r;
  r.kind = "reorder";
  r.type = shape.element_type;
  r.dims = permuted(shape.dimensions, axes);
  r.axes = Axes::kSaving;
  out.add(std::move(r));
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

// What device_rewrites knows about the array while it prints the offers.
struct Context {
  const xla::Shape& shape;
  const ShardSplit& split;
  std::vector<int64_t> memory_axes;  // the dims in memory order, most major first
  std::vector<int64_t> saving_axes;  // add_transpose's
};

// The change as Python a JAX user pastes: one expression, with what cannot be one (the global
// and the per-shard part of a sharded array's fix) in a comment.
std::string change_of(const Rewrite& r, const Context& c) {
  std::string change = "x";
  if (r.axes != Axes::kNone) {
    change = fmt::format("jnp.transpose(x, {})",
                         python_tuple(r.axes == Axes::kMemoryOrder ? c.memory_axes : c.saving_axes));
  }
  if (r.packbits == PackBits::kFlat) change = "jnp.packbits(x)";
  if (r.packbits == PackBits::kLastAxis) change = "jnp.packbits(x, axis=-1)";
  change += reshape_text(r);
  // A reshape of a sharded array is of each device's shard: a global one would move elements
  // between devices (a transpose follows the sharding, so it may stay global).
  if (is_sharded(c.split) && (r.reshape != Reshape::kNone || r.packbits != PackBits::kNone)) {
    change += "  # per shard, e.g. inside shard_map";
  }
  return change;
}

bool same_array(const Rewrite& a, const Rewrite& b) {
  return a.type == b.type && a.dims == b.dims;
}

}  // namespace

std::vector<ProgramFix> device_rewrites(const xla::Shape& shape, int64_t size_bytes,
                                        Target target, PredStorage pred, std::size_t limit,
                                        const ShardSplit& split) {
  target = resolve_target(target, XlaEra::k2026);
  const std::vector<int64_t>& dims = shape.dimensions;
  if (dims.empty() || std::find(dims.begin(), dims.end(), 0) != dims.end()) return {};
  const std::vector<int64_t>& m2m = shape.layout.minor_to_major;
  Context context{shape, split, {m2m.rbegin(), m2m.rend()}, {}};
  Candidates candidates(target, pred, dims);
  try {
    add_reshapes(candidates, shape.element_type, dims);
    if (!std::is_sorted(m2m.rbegin(), m2m.rend())) {
      // Neighbours in memory: the merges that move no data, after a transpose that is a bitcast.
      add_reshapes(candidates, shape.element_type, permuted(dims, context.memory_axes),
                   Axes::kMemoryOrder);
    }
    if (dims.size() >= 2) context.saving_axes = saving_axes(shape, target, pred);
    add_transpose(candidates, shape, context.saving_axes, size_bytes);
    add_packbits(candidates, shape);
  } catch (const Error&) {
    // The element count overflows int64: no reshape of it exists.
  }

  // Ranked by bytes, then kind; of equals, the first tried (the simplest change) first.
  const std::vector<Rewrite>& list = candidates.list();
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (list[i].bytes < size_bytes) order.push_back(i);
  }
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (list[a].bytes != list[b].bytes) return list[a].bytes < list[b].bytes;
    const int ka = kind_rank(list[a].kind), kb = kind_rank(list[b].kind);
    return ka != kb ? ka < kb : a < b;
  });
  auto layout_of = [&](const Rewrite& r) {
    return xla::print_shape(libtpu_device_shape(r.type, r.dims, target, pred));
  };
  std::vector<ProgramFix> fixes;
  for (std::size_t i = 0; i < order.size() && fixes.size() < limit;) {
    const Rewrite& first = list[order[i]];
    ProgramFix fix{first.kind,  layout_of(first), first.bytes, size_bytes - first.bytes,
                   change_of(first, context), {}};
    std::size_t end = i + 1;
    for (; end < order.size(); ++end) {
      const Rewrite& other = list[order[end]];
      if (other.bytes != first.bytes || std::string_view(other.kind) != first.kind) break;
      // Two rewrites that make the same array are one: the first is the offer.
      bool repeated = false;
      for (std::size_t j = i; j < end && !repeated; ++j) {
        repeated = same_array(list[order[j]], other);
      }
      if (!repeated) fix.alternatives.push_back(layout_of(other));
    }
    fixes.push_back(std::move(fix));
    i = end;
  }
  return fixes;
}

}  // namespace tessera::explain
