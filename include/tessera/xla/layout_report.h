// What `tessera info` reports about an XLA layout, as JSON and as text.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "tessera/xla/tiled_layout.h"

namespace tessera::xla {

// The layout's part of `tessera info --json` (docs/reference/json/info.schema.json describes each
// key): shape, sizes, and the pad-reshape-transpose steps of every tile level.
nlohmann::ordered_json layout_report_json(const TiledLayout& layout);

// The same facts for people, one per line.
std::string layout_report_text(const TiledLayout& layout);

// "(2,3,2,2)"
std::string format_dims(const std::vector<int64_t>& dims);

}  // namespace tessera::xla
