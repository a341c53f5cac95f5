// XLA's Shape, Layout and Tile as plain value types (after XLA's layout.h).
//
// The notation (tiled layout spec, "Tiled formats"):  bf16[32,256]{1,0:T(8,128)(2,1)L(4)E(16)S(1)}
//   element type [dims] {minor_to_major : T(tile)(tile)... L(tail alignment) E(bits) S(space)}
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/element_type.h"

namespace tessera::xla {

// One level of tiling. Entries cover the minor-most dimensions of the shape they tile;
// kCombineDimension ('*') folds that dimension into the next more minor one.
struct Tile {
  static constexpr int64_t kCombineDimension = -1;
  std::vector<int64_t> dimensions;
  bool operator==(const Tile&) const = default;
};

struct Layout {
  std::vector<int64_t> minor_to_major;
  std::vector<Tile> tiles;
  int64_t tail_padding_alignment_in_elements = 1;  // L(n): element count rounded up to n
  int64_t element_size_in_bits = 0;                // E(n): 0 means the type's default
  int64_t memory_space = 0;                        // S(n): recorded, no effect on placement
  bool operator==(const Layout&) const = default;

  // {rank-1, ..., 1, 0}: row-major, XLA's default.
  static Layout descending(int rank);
};

struct Shape {
  ElementType element_type = ElementType::kF32;
  std::vector<int64_t> dimensions;
  Layout layout;
  bool operator==(const Shape&) const = default;

  int rank() const { return static_cast<int>(dimensions.size()); }
  // Bits one element occupies in memory: E(n) if given, else the type's default storage.
  int element_storage_bits() const;
};

}  // namespace tessera::xla
