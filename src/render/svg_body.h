// The <svg> element shared by the SVG file and the HTML page (without the XML declaration).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "tessera/render/grid_window.h"
#include "tessera/render/xla_picture.h"

namespace tessera::render {

std::string svg_body(const XlaPicture& picture);

// The opening <svg> tag of a width x height picture and its white background.
std::string svg_open(double width, double height);

// Where a grid of cells is drawn: its top-left corner, cell size and label font.
struct GridPlacement {
  double x = 0;
  double y = 0;
  double cell = 0;
  double font = 0;
};

// Column numbers over a grid showing `window`, and row labels beside it (row_label(r) for the
// window's r-th row): every one when cells are 24 px or more, else every 8th.
std::string grid_labels(const GridWindow& window, const GridPlacement& at,
                        const std::function<std::string(int64_t)>& row_label);

}  // namespace tessera::render
