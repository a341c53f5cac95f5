// Pictures as notebook output (Jupyter's _repr_html_ / _repr_svg_): a fragment of a page that
// holds other outputs, not a page of its own (bf16[4096,4096] gave 3 MB with a
// global body{} style and a fixed id="info", so two outputs cross-highlighted).
#pragma once

#include <cstddef>
#include <string>

#include "tessera/xla/tiled_layout.h"

namespace tessera::render {

inline constexpr std::size_t kMaxNotebookBytes = 300 * 1024;

// One <div class="tessera-picture" id="tessera-XXXXXXXXXXXXXXXX"> (an id unique to this output)
// with the picture, its hover panel, a style whose every rule starts with that id and a script
// that listens and searches only inside it. The default window is shrunk (rows, then columns,
// halved) until the fragment has at most `max_bytes`; a note then says which part is shown and
// that layout.to_html(window=...) or layout.save("x.html") gives the rest.
std::string xla_notebook_html(const xla::TiledLayout& layout,
                              std::size_t max_bytes = kMaxNotebookBytes);

// The SVG alone (it has no ids or styles), windowed the same way.
std::string xla_notebook_svg(const xla::TiledLayout& layout,
                             std::size_t max_bytes = kMaxNotebookBytes);

}  // namespace tessera::render
