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
#include "tessera/tpu/compiler_model.h"
#include "tessera/xla/notation.h"

namespace tessera::explain {
namespace {

constexpr int64_t kLanes = 128;
// Every grouping of neighbouring dims is 2^(rank-1) reshapes: 128 at rank 8. Above it, the
// merges of one pair, at most kMaxPairMerges of them from the minor end, so that a rank-1000
// hostile shape stays cheap (each new array's size is O(rank^2) to find).
constexpr std::size_t kMaxRankForGroupings = 8;
constexpr std::size_t kMaxPairMerges = 16;

// kGrouping: bit i of the grouping joins dims i and i+1; kPair: the grouping is the index of
// the one pair joined (above kMaxRankForGroupings).
enum class Reshape { kNone, kGrouping, kPair, kFlatten, kRowsOfLanes };
enum class PackBits { kNone, kFlat, kLastAxis };

// Which jnp.transpose comes first: none, the one to the dims' memory order (a bitcast: the
// merges after it move no data), or the one that saves (saving_axes).
enum class Axes { kNone, kMemoryOrder, kSaving };

// One rewrite of x: transpose, pack bits, reshape, in that order. No dims of its own (they are
// made when needed, dims_of): dozens are sized per array explained, and few are printed.
struct Rewrite {
  const char* kind = "reshape";
  ElementType type = ElementType::kF32;
  Axes axes = Axes::kNone;
  PackBits packbits = PackBits::kNone;
  Reshape reshape = Reshape::kNone;
  uint64_t grouping = 0;
  int64_t bytes = 0;
  // Its bytes were its dims kept in the written order: of rewrites with the same bytes, the one
  // that needs no reordering to get them is the offer (libtpu_device_bytes with kAsWritten).
  int64_t written_order_bytes = 0;
};

// What device_rewrites knows about the array.
struct Context {
  const xla::Shape& shape;
  const ShardSplit& split;
  int64_t elements = 0;
  std::vector<int64_t> memory_axes;  // the dims in memory order, most major first
  std::vector<int64_t> saving_axes;  // saving_axes(), or empty
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

bool is_identity(const std::vector<int64_t>& axes) {
  for (std::size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

void permute_into(const std::vector<int64_t>& dims, const std::vector<int64_t>& axes,
                  std::vector<int64_t>& out) {
  out.clear();
  for (int64_t a : axes) out.push_back(dims[static_cast<std::size_t>(a)]);
}

// The dims of the array `r` makes, into `out` (no allocation once `out` is large enough).
void dims_of(const Rewrite& r, const Context& c, std::vector<int64_t>& out) {
  const std::vector<int64_t>& input = c.shape.dimensions;
  switch (r.axes) {
    case Axes::kNone:
      out.assign(input.begin(), input.end());
      break;
    case Axes::kMemoryOrder:
      permute_into(input, c.memory_axes, out);
      break;
    case Axes::kSaving:
      permute_into(input, c.saving_axes, out);
      break;
  }
  if (r.packbits == PackBits::kFlat) out.assign(1, ceil_divide(c.elements, 8));
  if (r.packbits == PackBits::kLastAxis) out.back() = ceil_divide(out.back(), 8);
  switch (r.reshape) {
    case Reshape::kNone:
      return;
    case Reshape::kFlatten:
      out.assign(1, c.elements);
      return;
    case Reshape::kRowsOfLanes:
      out.assign({c.elements / kLanes, kLanes});
      return;
    case Reshape::kPair: {
      const auto at = static_cast<std::size_t>(r.grouping);
      out[at] = checked_multiply(out[at], out[at + 1], "merged dimension");
      out.erase(out.begin() + static_cast<std::ptrdiff_t>(at) + 1);
      return;
    }
    case Reshape::kGrouping: {
      std::size_t kept = 0;
      for (std::size_t i = 0; i < out.size(); ++i) {
        if (i > 0 && (r.grouping >> (i - 1)) & 1) {
          out[kept - 1] = checked_multiply(out[kept - 1], out[i], "merged dimension");
        } else {
          out[kept++] = out[i];
        }
      }
      out.resize(kept);
      return;
    }
  }
}

// The rewrites sized so far. Two rewrites that make arrays of one type and dims are one offer
// (the later one dropped when the offers are printed: they have the same bytes and kind).
class Candidates {
 public:
  Candidates(const Context& context, const tpu::TpuTarget& target)
      : context_(context), target_(target) {}

  // Adds `r` sized, unless it makes the input's own dims (no change) or its size overflows.
  void add(Rewrite r) {
    try {
      dims_of(r, context_, scratch_);
      if (r.axes != Axes::kSaving && scratch_ == context_.shape.dimensions) return;
      r.bytes = tpu::libtpu_device_bytes(r.type, scratch_, target_);
      r.written_order_bytes =
          tpu::libtpu_device_bytes(r.type, scratch_, target_, tpu::DimensionOrder::kAsWritten);
    } catch (const Error&) {
      return;  // a new array whose size overflows is no fix
    }
    list_.push_back(r);
  }
  const std::vector<Rewrite>& list() const { return list_; }

 private:
  const Context& context_;
  tpu::TpuTarget target_;
  std::vector<int64_t> scratch_;
  std::vector<Rewrite> list_;
};

// The reshapes of the array (in memory order when `axes` says so): every grouping of
// neighbours, fewest merges first and, of as many, the most minor first; then the flatten, then
// rows of 128 lanes. Of two that save the same, the one tried first is the offer: the smallest
// change to the program (s32[2048,1,128,128,4]{4,3,2,1,0} -> x.reshape(2048, 1, 128, 512), not
// x.reshape(-1)).
void add_reshapes(Candidates& out, const Context& c, Axes axes) {
  Rewrite r;
  r.type = c.shape.element_type;
  r.axes = axes;
  const std::size_t rank = c.shape.dimensions.size();
  if (rank > kMaxRankForGroupings) {
    r.reshape = Reshape::kPair;
    for (std::size_t i = rank - 1; i-- > 0 && rank - 1 - i <= kMaxPairMerges;) {
      r.grouping = i;
      out.add(r);
    }
  } else if (rank >= 3) {
    r.reshape = Reshape::kGrouping;
    const std::size_t boundaries = rank - 1;
    const uint64_t all = (uint64_t{1} << boundaries) - 1;
    for (int merges = 1; merges < static_cast<int>(boundaries); ++merges) {
      for (uint64_t mask = all - 1; mask > 0; --mask) {  // a high bit joins minor dims
        if (std::popcount(mask) != merges) continue;
        r.grouping = mask;
        out.add(r);
      }
    }
  }
  r.reshape = Reshape::kFlatten;
  out.add(r);
  if (c.elements % kLanes == 0) {
    r.reshape = Reshape::kRowsOfLanes;
    out.add(r);
  }
}

// The axes of jnp.transpose for an array whose order the program fixed: those that put the
// compiler's minor dims last, so the new array is stored in the order it is written (any other
// order but the identity has the same bytes).
std::vector<int64_t> saving_axes(const xla::Shape& shape, const tpu::TpuTarget& target) {
  const std::vector<int64_t> m2m =
      tpu::libtpu_minor_to_major(shape.element_type, shape.dimensions, target);
  std::vector<int64_t> axes(m2m.rbegin(), m2m.rend());
  if (is_identity(axes)) std::swap(axes[0], axes[1]);
  return axes;
}

// pred as bits: jnp.packbits(x) (flattened) and, from rank 2, along the last axis.
void add_packbits(Candidates& out, const Context& c) {
  if (c.shape.element_type != ElementType::kPred) return;
  Rewrite r;
  r.kind = "storage";
  r.type = ElementType::kU8;
  r.packbits = PackBits::kFlat;
  out.add(r);
  if (c.shape.dimensions.size() < 2) return;
  r.packbits = PackBits::kLastAxis;
  out.add(r);
}

std::string reshape_text(const Rewrite& r, const std::vector<int64_t>& dims) {
  switch (r.reshape) {
    case Reshape::kNone:
      return "";
    case Reshape::kFlatten:
      return ".reshape(-1)";
    case Reshape::kRowsOfLanes:
      return fmt::format(".reshape(-1, {})", kLanes);
    case Reshape::kGrouping:
    case Reshape::kPair:
      return fmt::format(".reshape({})", fmt::join(dims, ", "));
  }
  return "";
}

// The change as Python a JAX user pastes: one expression.
std::string change_of(const Rewrite& r, const Context& c, const std::vector<int64_t>& dims) {
  std::string change = "x";
  if (r.axes != Axes::kNone) {
    change =
        fmt::format("jnp.transpose(x, {})",
                    python_tuple(r.axes == Axes::kMemoryOrder ? c.memory_axes : c.saving_axes));
  }
  if (r.packbits == PackBits::kFlat) change = "jnp.packbits(x)";
  if (r.packbits == PackBits::kLastAxis) change = "jnp.packbits(x, axis=-1)";
  change += reshape_text(r, dims);
  // A reshape of a sharded array is of each device's shard: a global one would move elements
  // between devices (a transpose follows the sharding, so it may stay global). A Python comment
  // says so, and the line stays code.
  if (is_sharded(c.split) && (r.reshape != Reshape::kNone || r.packbits != PackBits::kNone)) {
    change += "  # per shard, e.g. inside shard_map";
  }
  return change;
}

}  // namespace

std::vector<ProgramFix> device_rewrites(const xla::Shape& shape, int64_t size_bytes,
                                        const tpu::TpuTarget& target, std::size_t limit,
                                        const ShardSplit& split) {
  const std::vector<int64_t>& dims = shape.dimensions;
  if (dims.empty() || std::find(dims.begin(), dims.end(), 0) != dims.end()) return {};
  const std::vector<int64_t>& m2m = shape.layout.minor_to_major;
  Context context{shape, split, 0, {m2m.rbegin(), m2m.rend()}, {}};
  try {
    context.elements = product(dims);
  } catch (const Error&) {
    return {};  // the element count overflows int64: no reshape of it exists
  }
  Candidates candidates(context, target);
  add_reshapes(candidates, context, Axes::kNone);
  if (!std::is_sorted(m2m.rbegin(), m2m.rend())) {
    // Neighbours in memory: the merges that move no data, after a transpose that is a bitcast.
    add_reshapes(candidates, context, Axes::kMemoryOrder);
  }
  // A transpose saves only when the compiler's order for these dims is not the array's. No c128
  // transpose is offered: libtpu 0.0.42.1 fails to compile one that moves data (a RET_CHECK in
  // its complex-number emitter; tests/python/test_tpu_compiler_live.py leaves them out).
  if (dims.size() >= 2 && shape.element_type != ElementType::kC128 &&
      tpu::libtpu_device_bytes(shape.element_type, dims, target) < size_bytes) {
    context.saving_axes = saving_axes(shape, target);
    Rewrite transpose;
    transpose.kind = "reorder";
    transpose.type = shape.element_type;
    transpose.axes = Axes::kSaving;
    candidates.add(transpose);
  }
  add_packbits(candidates, context);

  // Ranked by bytes, then kind; of equals, the one that takes its bytes also in the written
  // order (s32[2048,1,128,128,4]{4,3,2,1,0}: x.reshape(2048, 1, 128, 512), not the device array
  // x.reshape(2048, 128, 128, 4); f32[7,5,5,1]: x.reshape(-1), not x.reshape(175, 1)), then the
  // first tried (the smallest change).
  const std::vector<Rewrite>& list = candidates.list();
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (list[i].bytes < size_bytes) order.push_back(i);
  }
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const Rewrite& x = list[a];
    const Rewrite& y = list[b];
    if (x.bytes != y.bytes) return x.bytes < y.bytes;
    const int kx = kind_rank(x.kind), ky = kind_rank(y.kind);
    if (kx != ky) return kx < ky;
    if (x.written_order_bytes != y.written_order_bytes) {
      return x.written_order_bytes < y.written_order_bytes;
    }
    return a < b;
  });
  std::vector<ProgramFix> fixes;
  std::vector<std::vector<int64_t>> group;  // the dims of the arrays of the offer being built
  for (std::size_t i = 0; i < order.size() && fixes.size() < limit;) {
    const Rewrite& first = list[order[i]];
    group.assign(1, {});
    dims_of(first, context, group[0]);
    ProgramFix fix{first.kind,
                   xla::print_shape(tpu::libtpu_device_shape(first.type, group[0], target)),
                   first.bytes,
                   size_bytes - first.bytes,
                   change_of(first, context, group[0]),
                   {}};
    std::size_t end = i + 1;
    for (; end < order.size(); ++end) {
      const Rewrite& other = list[order[end]];
      if (other.bytes != first.bytes || std::string_view(other.kind) != first.kind) break;
      std::vector<int64_t> other_dims;
      dims_of(other, context, other_dims);
      // Two rewrites that make the same array are one offer.
      if (std::find(group.begin(), group.end(), other_dims) != group.end()) continue;
      fix.alternatives.push_back(
          xla::print_shape(tpu::libtpu_device_shape(other.type, other_dims, target)));
      group.push_back(std::move(other_dims));
    }
    fixes.push_back(std::move(fix));
    i = end;
  }
  return fixes;
}

}  // namespace tessera::explain
