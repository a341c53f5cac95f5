#include "xla/tile_chain.h"

#include <fmt/format.h>

#include "tessera/checked_arithmetic.h"
#include "tessera/error.h"

namespace tessera::xla {
namespace {

// Far beyond any real layout; bounds the work a hostile input can cause (quadratic in rank).
constexpr std::size_t kMaxPhysicalRank = 1024;

// Physical position k (most major first) holds logical dimension minor_to_major[rank-1-k].
int64_t logical_dim_at(const std::vector<int64_t>& minor_to_major, std::size_t k) {
  return minor_to_major[minor_to_major.size() - 1 - k];
}

}  // namespace

TileChainShapes compute_tile_chain_shapes(const Shape& shape) {
  TileChainShapes out;
  const auto& m2m = shape.layout.minor_to_major;
  for (std::size_t k = 0; k < m2m.size(); ++k) {
    out.physical_order_dims.push_back(shape.dimensions[logical_dim_at(m2m, k)]);
  }
  std::vector<int64_t> dims = out.physical_order_dims;
  for (const Tile& tile : shape.layout.tiles) {
    TilingStep step;
    step.tile = tile;
    const std::size_t k = tile.dimensions.size();
    // A tile longer than the shape sees leading size-1 dimensions (f32[]{:T(256)} is 256 elements).
    if (k > dims.size()) {
      step.prepended_dims = static_cast<int64_t>(k - dims.size());
      dims.insert(dims.begin(), k - dims.size(), 1);
    }
    if (dims.size() + tile.dimensions.size() > kMaxPhysicalRank) {
      throw Error(
          ErrorKind::kInvalid,
          fmt::format("the tiles produce more than {} physical dimensions", kMaxPhysicalRank));
    }
    step.input_dims = dims;
    const std::size_t first = dims.size() - k;
    std::vector<int64_t> prefix(dims.begin(), dims.begin() + static_cast<std::ptrdiff_t>(first));
    std::vector<int64_t> merged;
    int64_t pending = 1;
    for (std::size_t i = 0; i < k; ++i) {
      const int64_t size = checked_multiply(pending, dims[first + i], "a combined dimension");
      if (tile.dimensions[i] == Tile::kCombineDimension) {
        pending = size;  // spec: "*" folds this dimension into the next more minor one
        continue;
      }
      pending = 1;
      merged.push_back(size);
      step.tile_dims.push_back(tile.dimensions[i]);
    }
    step.combined_dims = prefix;
    step.padded_dims = prefix;
    step.reshaped_dims = prefix;
    step.output_dims = prefix;
    step.combined_dims.insert(step.combined_dims.end(), merged.begin(), merged.end());
    for (std::size_t j = 0; j < merged.size(); ++j) {
      const int64_t t = step.tile_dims[j];
      step.padded_dims.push_back(round_up(merged[j], t, "a padded dimension"));
      step.reshaped_dims.push_back(ceil_divide(merged[j], t));
      step.reshaped_dims.push_back(t);
      step.output_dims.push_back(ceil_divide(merged[j], t));
    }
    step.output_dims.insert(step.output_dims.end(), step.tile_dims.begin(), step.tile_dims.end());
    dims = step.output_dims;
    out.steps.push_back(std::move(step));
  }
  out.physical_dims = dims;
  out.tiled_elements = 1;
  for (int64_t d : dims)
    out.tiled_elements = checked_multiply(out.tiled_elements, d, "the number of physical elements");
  return out;
}

TileChain::TileChain(const Shape& shape, const TileChainShapes& shapes)
    : minor_to_major_(shape.layout.minor_to_major),
      steps_(shapes.steps),
      physical_dims_(shapes.physical_dims),
      tiled_elements_(shapes.tiled_elements) {}

std::vector<std::vector<int64_t>> TileChain::coordinates_by_level(
    std::span<const int64_t> index) const {
  std::vector<std::vector<int64_t>> levels;
  std::vector<int64_t> c;
  for (std::size_t k = 0; k < minor_to_major_.size(); ++k) {
    c.push_back(index[logical_dim_at(minor_to_major_, k)]);
  }
  levels.push_back(c);
  for (const TilingStep& step : steps_) {
    c.insert(c.begin(), static_cast<std::size_t>(step.prepended_dims), 0);
    const std::size_t k = step.tile.dimensions.size();
    const std::size_t first = c.size() - k;
    std::vector<int64_t> next(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(first));
    std::vector<int64_t> merged;
    int64_t pending = 0;
    for (std::size_t i = 0; i < k; ++i) {
      const int64_t v = pending * step.input_dims[first + i] + c[first + i];
      if (step.tile.dimensions[i] == Tile::kCombineDimension) {
        pending = v;
        continue;
      }
      pending = 0;
      merged.push_back(v);
    }
    for (std::size_t j = 0; j < merged.size(); ++j) next.push_back(merged[j] / step.tile_dims[j]);
    for (std::size_t j = 0; j < merged.size(); ++j) next.push_back(merged[j] % step.tile_dims[j]);
    c = std::move(next);
    levels.push_back(c);
  }
  return levels;
}

int64_t TileChain::offset_of(std::span<const int64_t> index) const {
  const std::vector<int64_t> c = coordinates_by_level(index).back();
  int64_t offset = 0;  // spec: linear_index(e, d), row-major over the final shape
  for (std::size_t k = 0; k < c.size(); ++k) offset = offset * physical_dims_[k] + c[k];
  return offset;
}

std::optional<std::vector<int64_t>> TileChain::index_at(int64_t offset) const {
  if (offset >= tiled_elements_) return std::nullopt;  // L(n) tail padding
  std::vector<int64_t> c(physical_dims_.size());
  for (std::size_t k = physical_dims_.size(); k-- > 0;) {
    c[k] = offset % physical_dims_[k];
    offset /= physical_dims_[k];
  }
  for (auto step = steps_.rbegin(); step != steps_.rend(); ++step) {
    const std::size_t tiled = step->tile_dims.size();
    const std::size_t prefix = c.size() - 2 * tiled;
    std::vector<int64_t> merged;
    for (std::size_t j = 0; j < tiled; ++j) {
      const int64_t v = c[prefix + j] * step->tile_dims[j] + c[prefix + tiled + j];
      if (v >= step->combined_dims[prefix + j]) return std::nullopt;  // padding of this level
      merged.push_back(v);
    }
    // Undo the '*' folds: each merged value is a row-major index over the dims it combined.
    const std::size_t k = step->tile.dimensions.size();
    const std::size_t first = step->input_dims.size() - k;
    std::vector<int64_t> previous(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(prefix));
    previous.resize(step->input_dims.size());
    std::size_t group_end = 0;
    for (std::size_t j = 0; j < tiled; ++j) {
      std::size_t group_begin = group_end;
      while (step->tile.dimensions[group_end] == Tile::kCombineDimension) ++group_end;
      int64_t v = merged[j];
      for (std::size_t i = group_end + 1; i-- > group_begin;) {
        previous[first + i] = v % step->input_dims[first + i];
        v /= step->input_dims[first + i];
      }
      ++group_end;
    }
    previous.erase(previous.begin(), previous.begin() + step->prepended_dims);
    c = std::move(previous);
  }
  std::vector<int64_t> index(minor_to_major_.size());
  for (std::size_t k = 0; k < minor_to_major_.size(); ++k) {
    index[logical_dim_at(minor_to_major_, k)] = c[k];
  }
  return index;
}

}  // namespace tessera::xla
