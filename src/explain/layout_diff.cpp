#include "tessera/explain/layout_diff.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "tessera/checked_arithmetic.h"
#include "tessera/error.h"
#include "tessera/npu/footprint.h"
#include "tessera/npu/local_tensor.h"
#include "tessera/relayout/relayout_plan.h"
#include "tessera/xla/jax_layout.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::explain {
namespace {

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\n')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n')) text.remove_suffix(1);
  return text;
}

bool is_jax_repr(std::string_view text) {
  text = trimmed(text);
  return text.starts_with("Layout(") || text.starts_with("DeviceLocalLayout(") ||
         text.starts_with("Format(");
}

// "f32[4,256]": the array a JAX repr is applied to.
std::string array_text(const relayout::LayoutOperand& operand) {
  return fmt::format("{}[{}]", element_type_name(operand.type), fmt::join(operand.dims, ","));
}

DiffSide make_side(std::string_view input, const std::string& array, const DiffOptions& options) {
  DiffSide side;
  side.input = std::string(trimmed(input));
  if (is_jax_repr(side.input)) {
    const xla::JaxLayout jax = xla::parse_jax_layout(side.input);
    side.note = xla::jax_order_note(jax);
    side.operand = relayout::xla_operand(xla::apply_jax_layout(xla::parse_shape(array), jax));
  } else if (side.input.starts_with("npu:") || !options.target.is_tpu()) {
    side.operand = relayout::parse_layout_operand(side.input);
  } else {
    side.operand = relayout::xla_operand(tpu::layout_for_target(side.input, options.target));
  }
  const IndexMap& map = *side.operand.map;
  side.layout = side.operand.text;
  side.element_bits = map.element_bits();
  side.size_bytes = map.size_bytes();
  if (side.operand.npu_tensor) {
    side.family = "npu";
    const npu::Footprint footprint = npu::footprint(*side.operand.npu_tensor);
    side.data_bytes = footprint.data_bytes;
    side.padding_bytes = footprint.wasted_bytes;
    return side;
  }
  side.family = "xla";
  side.data_bytes = bytes_for_bits(map.logical_elements(), map.element_bits());
  side.padding_bytes = side.size_bytes - side.data_bytes;
  const xla::Shape shape = xla::parse_shape(side.layout);
  if (!shape.layout.tiles.empty()) side.tile = xla::print_tile(shape.layout.tiles.front());
  return side;
}

// The array the JAX reprs are applied to: --shape, else the first side that is not a repr.
std::string array_for_reprs(std::string_view a, std::string_view b, const DiffOptions& options) {
  if (!options.shape.empty()) {
    bool layout_written = false;
    const xla::Shape shape = xla::parse_shape(options.shape, layout_written);
    // A --shape that writes a layout must agree with each repr, as explain's SHAPE must.
    for (std::string_view side : {a, b}) {
      if (layout_written && is_jax_repr(side))
        xla::shape_with_jax_layout(options.shape, trimmed(side));
    }
    return fmt::format("{}[{}]", element_type_name(shape.element_type),
                       fmt::join(shape.dimensions, ","));
  }
  for (std::string_view side : {a, b}) {
    if (!is_jax_repr(side)) return array_text(make_side(side, "", options).operand);
  }
  throw Error(ErrorKind::kInvalid,
              "both sides are JAX layout reprs, which do not say the array: give the shape (e.g. "
              "--shape f32[8,256])");
}

std::string order_text(const xla::Layout& layout) {
  return fmt::format("{{{}}}", fmt::join(layout.minor_to_major, ","));
}

std::string tiles_text(const xla::Layout& layout) {
  if (layout.tiles.empty()) return "none";
  std::string out = "T";
  for (const xla::Tile& tile : layout.tiles) out += xla::print_tile(tile);
  return out;
}

// The logical block one tile covers, per dimension; nullopt when the tile combines dimensions.
std::optional<std::vector<int64_t>> block_of(const xla::Shape& shape) {
  if (shape.layout.tiles.empty() || shape.rank() == 0) return std::nullopt;
  const std::vector<int64_t>& tile = shape.layout.tiles.front().dimensions;
  std::vector<int64_t> block(shape.dimensions.size(), 1);
  const std::size_t covered = std::min(tile.size(), shape.dimensions.size());
  for (std::size_t k = 0; k < covered; ++k) {
    const int64_t t = tile[tile.size() - 1 - k];
    if (t == xla::Tile::kCombineDimension) return std::nullopt;
    const auto dim = static_cast<std::size_t>(shape.layout.minor_to_major[k]);
    block[dim] = std::max<int64_t>(1, std::min(t, shape.dimensions[dim]));
  }
  return block;
}

std::optional<xla::Shape> xla_shape_of(const DiffSide& side) {
  if (side.family != "xla") return std::nullopt;
  return xla::parse_shape(side.layout);
}

TileSummary summarize_tiles(const LayoutDiff& diff) {
  TileSummary summary;
  const IndexMap& a = *diff.a.operand.map;
  const IndexMap& b = *diff.b.operand.map;
  const std::vector<int64_t>& dims = a.dims();
  std::optional<std::vector<int64_t>> block;
  for (const DiffSide* side : {&diff.a, &diff.b}) {
    if (block) break;
    if (const auto shape = xla_shape_of(*side)) {
      block = block_of(*shape);
      if (block) {
        summary.side = side == &diff.a ? "a" : "b";
        summary.tile = side->tile;
      }
    }
  }
  if (!block) {  // rows: one value of every dimension but the last
    block = std::vector<int64_t>(dims.size(), 1);
    block->back() = std::max<int64_t>(1, dims.back());
    summary.tile = "row";
  }
  summary.block = *block;
  std::vector<int64_t> counts(dims.size());
  int64_t blocks = 1;
  for (std::size_t d = 0; d < dims.size(); ++d) {
    counts[d] = ceil_divide(dims[d], summary.block[d]);
    blocks *= counts[d];
  }
  summary.blocks = blocks;
  std::vector<int64_t> stayed(static_cast<std::size_t>(blocks), 0);
  LogicalWalker walk_a(a), walk_b(b);
  for (; !walk_a.done(); walk_a.next(), walk_b.next()) {
    if (!relayout::same_position(walk_a.offset(), a.element_bits(), walk_b.offset(),
                                 b.element_bits())) {
      continue;
    }
    int64_t id = 0;
    for (std::size_t d = 0; d < dims.size(); ++d)
      id = id * counts[d] + walk_a.index()[d] / summary.block[d];
    ++stayed[static_cast<std::size_t>(id)];
  }
  std::vector<int64_t> coordinates(dims.size(), 0);
  for (int64_t id = 0; id < blocks; ++id) {
    int64_t elements = 1;
    for (std::size_t d = 0; d < dims.size(); ++d) {
      elements *= std::min(summary.block[d], dims[d] - coordinates[d] * summary.block[d]);
    }
    const int64_t kept = stayed[static_cast<std::size_t>(id)];
    if (kept == elements) {
      ++summary.unchanged;
    } else if (kept == 0) {
      ++summary.moved;
    } else {
      ++summary.partly_moved;
      if (summary.first_partly_moved.size() < 8) summary.first_partly_moved.push_back(coordinates);
    }
    for (std::size_t d = dims.size(); d-- > 0;) {
      if (++coordinates[d] < counts[d]) break;
      coordinates[d] = 0;
    }
  }
  return summary;
}

void check_same_array(const DiffSide& a, const DiffSide& b) {
  if (a.operand.type == b.operand.type && a.operand.dims == b.operand.dims) return;
  throw Error(ErrorKind::kInvalid,
              fmt::format("cannot diff {} and {}: they hold {} and {}, and a diff compares two "
                          "layouts of one array (the same element type and dimensions)",
                          a.layout, b.layout, array_text(a.operand), array_text(b.operand)));
}

}  // namespace

std::vector<int64_t> tile_block(const DiffSide& side) {
  const auto shape = xla_shape_of(side);
  return shape ? block_of(*shape).value_or(std::vector<int64_t>{}) : std::vector<int64_t>{};
}

std::vector<LayoutDifference> notation_differences(const xla::Shape& a, const xla::Shape& b) {
  std::vector<LayoutDifference> out;
  const xla::Layout& la = a.layout;
  const xla::Layout& lb = b.layout;
  if (la.minor_to_major != lb.minor_to_major) {
    // The two may have different ranks (a shape check comparing two arrays): then neither says.
    const bool minor_moves = !la.minor_to_major.empty() && !lb.minor_to_major.empty() &&
                             la.minor_to_major.front() != lb.minor_to_major.front();
    out.push_back({"order", order_text(la), order_text(lb),
                   minor_moves
                       ? fmt::format("the most minor dimension changes (dim {} -> dim {}): a "
                                     "transpose, elements that were neighbours in memory lie apart",
                                     la.minor_to_major.front(), lb.minor_to_major.front())
                       : "the major dimensions are reordered: the most minor dimension keeps its "
                         "runs, which move as wholes"});
  }
  if (la.tiles != lb.tiles) {
    out.push_back({"tiles", tiles_text(la), tiles_text(lb),
                   "the tiles differ: elements are regrouped into other blocks, and the padding "
                   "up to whole tiles changes with them"});
  }
  if (a.element_storage_bits() != b.element_storage_bits()) {
    out.push_back({"element_bits", fmt::format("{}", a.element_storage_bits()),
                   fmt::format("{}", b.element_storage_bits()),
                   "each element takes another number of bits (E(n)): every position changes"});
  }
  if (la.memory_space != lb.memory_space) {
    out.push_back({"memory_space", fmt::format("S({})", la.memory_space),
                   fmt::format("S({})", lb.memory_space),
                   "another memory space: the same arrangement in another memory (on TPU S(0) "
                   "is HBM, and XLA copies arrays into S(1) to keep them on chip), so the "
                   "bytes are copied, not rearranged"});
  }
  if (la.tail_padding_alignment_in_elements != lb.tail_padding_alignment_in_elements) {
    out.push_back({"tail_alignment", fmt::format("L({})", la.tail_padding_alignment_in_elements),
                   fmt::format("L({})", lb.tail_padding_alignment_in_elements),
                   "the buffer is rounded up to another element count: only the tail changes"});
  }
  return out;
}

LayoutDiff diff_layouts(std::string_view a, std::string_view b, const DiffOptions& options) {
  const std::string array = is_jax_repr(a) || is_jax_repr(b) ? array_for_reprs(a, b, options) : "";
  LayoutDiff diff;
  diff.a = make_side(a, array, options);
  diff.b = make_side(b, array, options);
  check_same_array(diff.a, diff.b);
  const IndexMap& ma = *diff.a.operand.map;
  const IndexMap& mb = *diff.b.operand.map;
  diff.moved = relayout::count_moved_elements(ma, mb, options.walk_limit);
  const auto sa = xla_shape_of(diff.a);
  const auto sb = xla_shape_of(diff.b);
  if (sa && sb) {
    diff.differences = notation_differences(*sa, *sb);
  } else if (diff.a.family != diff.b.family) {
    diff.differences.push_back({"family", diff.a.family, diff.b.family,
                                "one side is an NPU's local memory, the other an XLA layout: "
                                "the elements are scattered over the NPUs or gathered from them"});
  }
  if (!options.tile_summary) {
    diff.tiles_note = "not asked for";
  } else if (ma.rank() == 0) {
    diff.tiles_note = "a scalar has no tiles";
  } else if (ma.logical_elements() == 0) {
    diff.tiles_note = "the array has no elements";
  } else if (ma.logical_elements() > kTileSummaryElements) {
    diff.tiles_note = fmt::format(
        "no summary by tile above {} elements (it visits every element); the counts are exact",
        kTileSummaryElements);
  } else {
    diff.tiles = summarize_tiles(diff);
  }
  try {
    const relayout::RelayoutPlan plan = relayout::plan(ma, mb, {.threads = options.threads});
    diff.plan_pieces = plan.piece_count();
    diff.plan_threads = plan.threads();
    std::string lines = plan.describe();
    for (std::size_t start = 0; start < lines.size();) {
      const std::size_t end = std::min(lines.find('\n', start), lines.size());
      if (end > start) diff.kernels.push_back(lines.substr(start, end - start));
      start = end + 1;
    }
    diff.cost = options.measure ? relayout::measure_cost(plan) : relayout::estimate_cost(plan);
  } catch (const Error& error) {
    if (error.kind() != ErrorKind::kInvalid) throw;
    diff.kernels.push_back("no relayout plan: " + error.message());
    diff.cost.bytes_read = ma.size_bytes();
    diff.cost.bytes_written = mb.size_bytes();
    diff.cost.basis = "no plan, no time";
  }
  return diff;
}

}  // namespace tessera::explain
