// Which elements a layout change moves: an element stays when it sits at the same
// position in both buffers (the same byte, and the same bits of that byte for elements narrower
// than a byte), and moves otherwise. A conversion done in place leaves the stayed ones alone.
//
//   count_moved_elements(f32[4,256]{1,0}, f32[4,256]{1,0:T(8,128)})
//     -> 1024 elements, 896 moved, 128 stayed: row 0's first 128 values are the first bytes of
//        both; everything else is 128 elements further in the tiled buffer.
//
// Counted exactly without visiting every element: over the common refinement of the two
// layouts (common_refinement.h) every piece of the array is a box on which both offsets are
// linear, so the stayed elements of a box are the solutions of one linear equation in its
// loop counters, counted by a pruned search that solves the last two counters in closed form.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "tessera/index_map.h"

namespace tessera::relayout {

struct MovedElements {
  int64_t elements = 0;  // logical elements
  int64_t moved = 0;
  int64_t stayed = 0;
  // How the count was made: "closed form over 3 boxes of the common refinement" or "element by
  // element" (layouts without a common refinement).
  std::string method;
};

// Arrays larger than this are not counted element by element.
inline constexpr int64_t kMovedWalkLimit = int64_t{1} << 30;

// Throws Error(kInvalid) when the maps have different dims, and Error(kUnsupported) when the
// layouts have no common refinement and the array is larger than `walk_limit` elements (or,
// never seen on real layouts, the search exceeds its bound): the time stays bounded.
MovedElements count_moved_elements(const IndexMap& a, const IndexMap& b,
                                   int64_t walk_limit = kMovedWalkLimit);

// Whether element offset `offset_a` of `bits_a`-bit elements and `offset_b` of `bits_b`-bit ones
// start at the same bit.
bool same_position(int64_t offset_a, int bits_a, int64_t offset_b, int bits_b);

// Whether the element at `index` (a valid logical index) sits at the same position in both.
bool element_stays(const IndexMap& a, const IndexMap& b, std::span<const int64_t> index);

}  // namespace tessera::relayout
