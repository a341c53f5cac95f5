// Pictures as files: a standalone SVG, or one self-contained interactive HTML page (no network,
// no external scripts) where hovering or clicking a cell highlights it on both sides.
#pragma once

#include <string>
#include <string_view>

#include "tessera/render/xla_picture.h"

namespace tessera::render {

// "a<b" -> "a&lt;b": text safe inside XML/HTML elements and quoted attributes.
std::string xml_escape(std::string_view text);

// A complete SVG document. Every cell is a <g> with class "grid-cell" or "memory-slot" and the
// attributes data-offset, data-index ("2,3"; absent for unknown padding), data-tile and
// data-byte, so a reader (or a test) can find what is drawn where. Example: for
// f32[3,5]{1,0:T(2,2)} the grid cell data-index="2,3" shows the text 17.
std::string xla_svg(const XlaPicture& picture);

// An HTML page embedding the same SVG, a panel that shows the logical index, tile, offset and
// byte address of the hovered or clicked cell, and highlights every drawing of that element
// (class "selected"). The URL fragment drives it without a mouse: "#hover=2,3" hovers and
// "#select=2,3" clicks the grid cell of index (2,3); "#offset=17" selects by offset.
std::string xla_html(const XlaPicture& picture);

}  // namespace tessera::render

namespace tessera::render {

// Writes xla_svg or xla_html by the file's extension (.svg, .html or .htm, any case).
// Throws Error(kInvalid) for another extension, Error(kIo) when the file cannot be written.
void write_picture(const XlaPicture& picture, const std::string& path);

}  // namespace tessera::render
