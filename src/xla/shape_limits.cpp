#include "tessera/xla/shape_limits.h"

#include <fmt/format.h>

#include "tessera/error.h"

namespace tessera::xla {

void check_rank(std::size_t rank) {
  if (rank > static_cast<std::size_t>(kMaxRank)) {
    throw Error(ErrorKind::kUnsupported,
                fmt::format("rank {} is above tessera's limit of {} dimensions", rank, kMaxRank));
  }
}

void check_tile_levels(std::size_t levels) {
  if (levels > static_cast<std::size_t>(kMaxTileLevels)) {
    throw Error(
        ErrorKind::kUnsupported,
        fmt::format("{} tile levels are above tessera's limit of {}", levels, kMaxTileLevels));
  }
}

void check_shape_limits(const Shape& shape) {
  check_rank(shape.dimensions.size());
  check_tile_levels(shape.layout.tiles.size());
}

}  // namespace tessera::xla
