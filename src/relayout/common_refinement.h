// Compiles two digit forms into strided boxes over their common refinement
// (docs/design/relayout-engine.md, "A strided copy over a common refinement").
//
// Example: f32[4000,4000]{1,0} -> {1,0:T(8,128)}. Dimension 0 splits at weights {1, 8} (the tile
// row), dimension 1 at {1, 128}; over those digits both layouts are strided arrays. The logical
// range [0, 4000) of dimension 1 becomes an interior piece (31 full blocks of 128) and a boundary
// piece (the last 32 values), so the data is 2 boxes; the destination's padding (columns
// 4000..4095 of every tile row) is one more box.
#pragma once

#include <optional>
#include <vector>

#include "relayout/strided_box.h"
#include "tessera/index_map.h"

namespace tessera::relayout {

// The boxes that copy every logical element from `source` to `destination` (both with a digit
// form), each element exactly once; nullopt when the digit weights of some dimension do not
// form a common mixed radix (e.g. tiles of 3 and 2 on one dimension), or the origins differ on a
// dimension that both sides split into several digits.
// `dims` are the array's; the digit forms may have negative strides, and a dimension may have no
// digit on the source side (a broadcast source: every value reads one place).
std::optional<std::vector<StridedBox>> data_boxes(const DigitForm& source,
                                                  const DigitForm& destination,
                                                  const std::vector<int64_t>& dims);

// The destination's padding as boxes (only destination strides are meaningful): digit-grid
// positions that are not data, plus the tail up to size_elements() when the grid is the dense
// prefix of the buffer (XLA's L(n)). Positions outside the digit grid (e.g. the rest of an NPU
// local-memory image) belong to no layout and are not included.
std::vector<StridedBox> padding_boxes(const IndexMap& destination);

}  // namespace tessera::relayout
