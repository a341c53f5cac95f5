// A strided box: the unit of work of a relayout plan. Over the common refinement every piece of
// the conversion is an N-d array that is strided on both sides (docs/design/relayout-engine.md, "A
// strided copy over a common refinement"); a box with no source is a padding fill.
#pragma once

#include <cstdint>
#include <vector>

namespace tessera::relayout {

// One loop: `count` steps, each moving `source_stride` / `destination_stride` elements.
struct StridedAxis {
  int64_t count = 1;
  int64_t source_stride = 0;
  int64_t destination_stride = 0;
};

struct StridedBox {
  int64_t source_base = 0;  // element offsets of the box's first element
  int64_t destination_base = 0;
  std::vector<StridedAxis> axes;  // innermost first after simplify()

  int64_t elements() const;
};

// Drops count-1 axes, turns axes with a negative destination stride around (both strides
// negated, both bases moved to the other end), orders the loops destination-contiguous innermost
// (ascending destination stride) and fuses neighbours that are contiguous on both sides: axes {4 x
// (1,1)}, {3 x (4,4)} become {12 x (1,1)}. The set of (source, destination) element pairs does not
// change.
void simplify(StridedBox& box);

}  // namespace tessera::relayout
