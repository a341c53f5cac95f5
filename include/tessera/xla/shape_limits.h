// The largest shapes tessera accepts: far above real accelerator shapes (XLA programs rarely go
// past rank 8; TPU layouts nest at most 3 tile levels), low enough that every command, explain
// included, answers in well under a second (issue 14 items 4 and 7: rank 600 took 60 s).
#pragma once

#include <cstddef>

#include "tessera/xla/shape.h"

namespace tessera::xla {

inline constexpr int kMaxRank = 1024;
inline constexpr int kMaxTileLevels = 64;

// Throws Error(kUnsupported) "rank 2000 is above tessera's limit of 1024 dimensions" or "65 tile
// levels are above tessera's limit of 64".
// Called by the notation parser as it reads (so hostile text costs no more than the limit), by
// the .npy header reader, and by TiledLayout for shapes built in code.
void check_rank(std::size_t rank);
void check_tile_levels(std::size_t levels);
void check_shape_limits(const Shape& shape);

}  // namespace tessera::xla
