// The tiled layout spec's definitions applied literally, level by level: the reference
// semantics every faster path is tested against.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "tessera/index_map.h"
#include "tessera/xla/shape.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::xla {

// Builds the pad-reshape-transpose steps and the final physical dims of a shape.
struct TileChainShapes {
  std::vector<int64_t> physical_order_dims;
  std::vector<TilingStep> steps;
  std::vector<int64_t> physical_dims;
  int64_t tiled_elements = 0;
};
TileChainShapes compute_tile_chain_shapes(const Shape& shape);

class TileChain final : public IndexFunction {
 public:
  TileChain(const Shape& shape, const TileChainShapes& shapes);
  int64_t offset_of(std::span<const int64_t> index) const override;
  // [0]: the index in physical order; [k]: the shape after tile level k (tile index, then
  // within-tile index). Also defined for indices inside level 1's padding.
  std::vector<std::vector<int64_t>> coordinates_by_level(std::span<const int64_t> index) const;
  std::optional<std::vector<int64_t>> index_at(int64_t offset) const override;

 private:
  std::vector<int64_t> minor_to_major_;
  std::vector<TilingStep> steps_;
  std::vector<int64_t> physical_dims_;
  int64_t tiled_elements_;
};

// The digit form of a tiled layout, when every tile splits the digits built so far into a
// whole number of digits (always true for the TPU formats). nullopt otherwise.
std::optional<DigitForm> compile_tiled_digit_form(const Shape& shape,
                                                  const TileChainShapes& shapes);

}  // namespace tessera::xla
