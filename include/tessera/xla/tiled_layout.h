// A compiled XLA shape+layout: physical dims, sizes, the pad-reshape-transpose steps and the
// index map (tiled layout spec: "Linear index formulas", "Tiling as pad-reshape-transpose",
// "Repeated tiling", "Combining dimensions using tiles").
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "tessera/index_map.h"
#include "tessera/xla/shape.h"

namespace tessera::xla {

// One level of tiling, described as the spec's pad -> reshape -> transpose.
// Example: f32[3,5]{1,0:T(2,2)} has one step with input_dims (3,5), tile (2,2),
// padded_dims (4,6), reshaped_dims (2,2,3,2) and output_dims (2,3,2,2).
struct TilingStep {
  Tile tile;                           // as written, '*' included
  int64_t prepended_dims = 0;          // leading size-1 dims added because the tile is longer
  std::vector<int64_t> input_dims;     // the shape this level tiles (after prepending)
  std::vector<int64_t> combined_dims;  // after folding each '*' dim into the next more minor
  std::vector<int64_t> tile_dims;      // the tile without its '*' entries
  std::vector<int64_t> padded_dims;    // step 1: each tiled dim rounded up to its tile
  std::vector<int64_t> reshaped_dims;  // step 2: each tiled dim split into (ceil(d/t), t)
  std::vector<int64_t> output_dims;  // step 3: tile dims moved minor: (prefix, ceil(d/t)..., t...)
};

class TiledLayout {
 public:
  // Compiles a validated shape. Throws Error(kOverflow) when a size does not fit in 64 bits.
  explicit TiledLayout(Shape shape);

  const Shape& shape() const { return shape_; }
  // The logical dims permuted into physical order, most major first (before any tiling).
  const std::vector<int64_t>& physical_order_dims() const { return physical_order_dims_; }
  const std::vector<TilingStep>& steps() const { return steps_; }
  // The final tiled shape, most major first: (2,3,2,2) for f32[3,5]{1,0:T(2,2)}.
  const std::vector<int64_t>& physical_dims() const { return physical_dims_; }

  int64_t logical_elements() const { return index_map_->logical_elements(); }
  // Product of physical_dims: elements the tiles cover.
  int64_t tiled_elements() const { return tiled_elements_; }
  // tiled_elements rounded up to L(n): the elements the buffer holds.
  int64_t physical_elements() const { return index_map_->size_elements(); }
  int element_bits() const { return index_map_->element_bits(); }
  int64_t size_bytes() const { return index_map_->size_bytes(); }
  // 1 - logical/physical elements; 0 for an empty array.
  double padding_fraction() const;

  const IndexMap& index_map() const { return *index_map_; }

  // The spec's formula applied level by level, straight from the definitions, independent of
  // the index map's digit form (tests check that the two agree on every element).
  int64_t spec_linear_index(std::span<const int64_t> index) const;
  // The spec's coordinates after each step, for pictures and explanations: [0] is the index in
  // physical order, [k] the coordinates after tile level k (tile index, then within-tile index).
  // `index` may lie in level 1's padding (0 <= index[i] < level 1's padded size of that dim):
  // f32[3,5]{1,0:T(2,2)}, (2,3) -> {(2,3), (1,1,0,1)}; the padding cell (3,5) -> {(3,5),
  // (1,2,1,1)}. Throws Error(kOutOfRange) for a wrong rank or a negative component.
  std::vector<std::vector<int64_t>> coordinates_by_level(std::span<const int64_t> index) const;
  // Its inverse, level by level: nullopt for padding. Requires 0 <= offset < physical_elements.
  std::optional<std::vector<int64_t>> spec_logical_index(int64_t offset) const;

 private:
  Shape shape_;
  std::vector<int64_t> physical_order_dims_;
  std::vector<TilingStep> steps_;
  std::vector<int64_t> physical_dims_;
  int64_t tiled_elements_ = 0;
  std::shared_ptr<const IndexMap> index_map_;
  std::shared_ptr<const IndexFunction> spec_chain_;  // the level-by-level reference
};

}  // namespace tessera::xla
