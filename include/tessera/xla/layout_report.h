// What `tessera info` reports about an XLA layout, as JSON and as text.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "tessera/xla/tiled_layout.h"

namespace tessera::xla {

// One object with: canonical, dtype, element_bits, dims, minor_to_major, tiles (lists, -1 for
// '*'), tail_padding_alignment, memory_space, physical_order_dims, physical_dims, steps (the
// pad-reshape-transpose of every level), logical_elements, tiled_elements, physical_elements,
// logical_bytes, size_bytes, padding_fraction, has_digit_form.
nlohmann::ordered_json layout_report_json(const TiledLayout& layout);

// The same facts for people, one per line.
std::string layout_report_text(const TiledLayout& layout);

// "(2,3,2,2)"
std::string format_dims(const std::vector<int64_t>& dims);

}  // namespace tessera::xla
