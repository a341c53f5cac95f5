// The interactive page around a picture's <svg>: inline style and script, no network.
#pragma once

#include <string>
#include <string_view>

namespace tessera::render {

// Cells are elements with data-offset (the key shared by every drawing of one element),
// data-index, data-tile, data-byte, data-padding and optionally data-info (the panel's text).
std::string html_page(std::string_view title, const std::string& svg);

}  // namespace tessera::render
