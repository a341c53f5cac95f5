#include "tessera/explain/padding_breakdown.h"

#include <fmt/format.h>

#include "tessera/xla/layout_report.h"
#include "tessera/xla/notation.h"

namespace tessera::explain {
namespace {

std::string entry_name(std::size_t from_minor) {
  if (from_minor == 0) return "minor";
  if (from_minor == 1) return "second minor";
  return fmt::format("entry {} from minor", from_minor);
}

std::string format_factor(double factor) {
  if (factor == static_cast<double>(static_cast<int64_t>(factor))) {
    return fmt::format("x{}", static_cast<int64_t>(factor));
  }
  return fmt::format("x{:.3g}", factor);
}

// Names for the dims of the shape each tiling step sees, so that "dim 4" in the explanation is
// the user's logical dimension 4 even after minor_to_major reorders the dims.
std::vector<std::string> initial_labels(const xla::Shape& shape) {
  std::vector<std::string> labels;
  const auto& m2m = shape.layout.minor_to_major;
  for (auto it = m2m.rbegin(); it != m2m.rend(); ++it) labels.push_back(fmt::format("dim {}", *it));
  return labels;
}

}  // namespace

std::string_view padding_kind_name(PaddingSource::Kind kind) {
  switch (kind) {
    case PaddingSource::Kind::kTile:
      return "tile";
    case PaddingSource::Kind::kElementStorage:
      return "element_storage";
    case PaddingSource::Kind::kTailAlignment:
      return "tail_alignment";
  }
  return "tile";
}

std::vector<PaddingSource> padding_breakdown(const xla::TiledLayout& layout) {
  std::vector<PaddingSource> sources;
  std::vector<std::string> labels = initial_labels(layout.shape());
  int level = 0;
  for (const xla::TilingStep& step : layout.steps()) {
    ++level;
    const std::string tile = xla::print_tile(step.tile);
    labels.insert(labels.begin(), static_cast<std::size_t>(step.prepended_dims),
                  std::string("added size-1 dim"));
    const std::size_t k = step.tile.dimensions.size();
    const std::size_t first = labels.size() - k;
    std::vector<std::string> next(labels.begin(),
                                  labels.begin() + static_cast<std::ptrdiff_t>(first));
    std::vector<std::string> merged;
    std::string pending;
    for (std::size_t i = 0; i < k; ++i) {
      const bool combines = !pending.empty();
      pending += combines ? " * " + labels[first + i] : labels[first + i];
      if (step.tile.dimensions[i] == xla::Tile::kCombineDimension) continue;
      merged.push_back(combines || pending.find(" * ") != std::string::npos ? "(" + pending + ")"
                                                                            : pending);
      pending.clear();
    }
    const std::size_t tiled = step.tile_dims.size();
    for (std::size_t j = 0; j < tiled; ++j) {
      const int64_t from = step.combined_dims[first + j];
      const int64_t to = step.padded_dims[first + j];
      if (to == from || from == 0) continue;
      PaddingSource source;
      source.kind = PaddingSource::Kind::kTile;
      source.level = level;
      source.tile = tile;
      source.dimension = merged[j];
      source.entry = entry_name(tiled - 1 - j);
      source.from = from;
      source.to = to;
      source.factor = static_cast<double>(to) / static_cast<double>(from);
      source.text = fmt::format("{}: {} -> {} by the {} tile of T{} (level {}), {}", merged[j],
                                from, to, source.entry, tile, level, format_factor(source.factor));
      sources.push_back(std::move(source));
    }
    for (std::size_t j = 0; j < tiled; ++j) next.push_back(fmt::format("tiles of {}", merged[j]));
    for (std::size_t j = 0; j < tiled; ++j) {
      next.push_back(fmt::format("{} within tile {}", merged[j], level));
    }
    labels = std::move(next);
  }
  const xla::Shape& shape = layout.shape();
  const int value_bits = bit_width(shape.element_type);
  if (layout.element_bits() != value_bits) {
    PaddingSource source;
    source.kind = PaddingSource::Kind::kElementStorage;
    source.dimension = "each element";
    source.from = value_bits;
    source.to = layout.element_bits();
    source.factor = static_cast<double>(source.to) / static_cast<double>(source.from);
    source.text =
        fmt::format("each element: {} holds {} bit{} of information in {} stored bits, {}",
                    element_type_name(shape.element_type), value_bits, value_bits == 1 ? "" : "s",
                    source.to, format_factor(source.factor));
    sources.push_back(std::move(source));
  }
  if (layout.physical_elements() != layout.tiled_elements() && layout.tiled_elements() > 0) {
    PaddingSource source;
    source.kind = PaddingSource::Kind::kTailAlignment;
    source.dimension = "all elements";
    source.from = layout.tiled_elements();
    source.to = layout.physical_elements();
    source.factor = static_cast<double>(source.to) / static_cast<double>(source.from);
    source.text = fmt::format("all elements: {} -> {} by the tail alignment L({}), {}", source.from,
                              source.to, shape.layout.tail_padding_alignment_in_elements,
                              format_factor(source.factor));
    sources.push_back(std::move(source));
  }
  return sources;
}

}  // namespace tessera::explain
