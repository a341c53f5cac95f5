// The largest shapes tessera accepts: far above real accelerator shapes (XLA programs rarely go
// past rank 8; TPU layouts nest at most 3 tile levels), low enough that every command, explain
// included, answers in well under a second (a rank-600 shape once took a minute:
// tests/cli/test_hostile_cli.py::test_rank_and_tile_depth_have_documented_limits).
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
