// Where a layout's padding comes from: dimension by dimension, tile level by tile level.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/xla/tiled_layout.h"

namespace tessera::explain {

// One reason the buffer is bigger than the data.
struct PaddingSource {
  enum class Kind { kTile, kElementStorage, kTailAlignment };
  Kind kind = Kind::kTile;
  int level = 0;          // tile level, 1-based; 0 when not a tile
  std::string tile;       // "(8,128)" for kTile
  std::string dimension;  // what is padded: "dim 4", "(dim 2 * dim 3)", "dim 0 within tile 1"
  std::string entry;      // which tile entry: "minor", "second minor", "entry 3 from minor"
  int64_t from = 0;       // size before (elements, or bits per element for kElementStorage)
  int64_t to = 0;         // size after
  double factor = 1.0;    // to / from
  std::string text;       // "dim 4: 4 -> 128 by the minor tile of T(8,128) (level 1), x32"
};

std::string_view padding_kind_name(PaddingSource::Kind kind);

// Every place a size grows, in the order the layout applies them (tile levels first, then
// element storage, then L(n)). Dimensions that a tile divides exactly are not listed.
// Example: s32[2048,1,128,128,4]{4,3,2,1,0:T(8,128)} -> one source,
//   {kTile, level 1, "(8,128)", "dim 4", "minor", 4, 128, 32.0}; the buffer is 32x the data.
// pred[8,128]{1,0:T(8,128)E(32)} -> {kElementStorage, "1 -> 32 bits", x32}.
std::vector<PaddingSource> padding_breakdown(const xla::TiledLayout& layout);

}  // namespace tessera::explain
