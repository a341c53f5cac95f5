// Random XLA shapes with layouts for property tests: small enough to check exhaustively.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tessera/xla/notation.h"
#include "tessera/xla/shape.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::test_support {

struct RandomLayoutOptions {
  int max_rank = 4;
  int64_t max_dim = 9;
  int max_tile_levels = 3;
  bool allow_combine = true;   // '*' entries
  bool allow_sub_byte = true;  // E(1), E(4) on pred/s4/u4
  int64_t max_physical_elements = 1 << 14;
};

// Draws a random layout (order, 0-3 tile levels, sometimes L(n) and E(n)) onto `shape`'s type and
// dims; false when the draw is not a valid layout or has more than max_physical_elements.
inline bool draw_random_layout(std::mt19937_64& rng, xla::Shape& shape,
                               const RandomLayoutOptions& options) {
  auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  const int rank = shape.rank();
  shape.layout = xla::Layout::descending(rank);
  std::shuffle(shape.layout.minor_to_major.begin(), shape.layout.minor_to_major.end(), rng);
  const int levels = static_cast<int>(uniform(0, options.max_tile_levels));
  for (int level = 0; level < levels; ++level) {
    xla::Tile tile;
    const int64_t length = uniform(1, std::max(1, rank + 1));
    for (int64_t k = 0; k < length; ++k) {
      const bool combine = options.allow_combine && k + 1 < length && uniform(0, 5) == 0;
      tile.dimensions.push_back(combine ? xla::Tile::kCombineDimension
                                        : (uniform(0, 3) == 0 ? 1 : uniform(1, 8)));
    }
    shape.layout.tiles.push_back(tile);
  }
  if (uniform(0, 4) == 0) shape.layout.tail_padding_alignment_in_elements = uniform(1, 16);
  if (options.allow_sub_byte && uniform(0, 3) == 0) {
    if (shape.element_type == ElementType::kPred) shape.layout.element_size_in_bits = 1;
    if (shape.element_type == ElementType::kS4) shape.layout.element_size_in_bits = 4;
  }
  try {
    const xla::TiledLayout layout(shape);
    return layout.physical_elements() <= options.max_physical_elements;
  } catch (...) {
    return false;  // resample: over-large draws are not what these tests are about
  }
}

// A random valid shape whose compiled layout has at most max_physical_elements elements.
inline xla::Shape random_shape(std::mt19937_64& rng, const RandomLayoutOptions& options = {}) {
  auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  const ElementType types[] = {ElementType::kF32,  ElementType::kBF16, ElementType::kS8,
                               ElementType::kPred, ElementType::kS4,   ElementType::kF64};
  while (true) {
    xla::Shape shape;
    shape.element_type = types[uniform(0, 5)];
    const int rank = static_cast<int>(uniform(0, options.max_rank));
    for (int i = 0; i < rank; ++i) shape.dimensions.push_back(uniform(1, options.max_dim));
    if (draw_random_layout(rng, shape, options)) return shape;
  }
}

// Another random layout of the same array (type and dims) as `shape`.
inline xla::Shape random_layout_of(std::mt19937_64& rng, xla::Shape shape,
                                   const RandomLayoutOptions& options = {}) {
  while (!draw_random_layout(rng, shape, options)) {
  }
  return shape;
}

}  // namespace tessera::test_support
