// A picture of a layout diff: the logical array drawn twice, as layout A and as layout
// B, each cell showing the element's offset in that layout, the elements that move filled in one
// colour and the ones that stay in another, and each side's tiles framed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tessera/index_map.h"
#include "tessera/render/grid_window.h"

namespace tessera::render {

struct DiffPictureOptions {
  std::optional<GridWindow> window = {};  // default: default_window(...)
  int64_t max_cells = 4096;               // per grid
  // The logical block of each side's first tile level, framed on its grid (empty: no frames).
  std::vector<int64_t> frame_a = {};
  std::vector<int64_t> frame_b = {};
};

struct DiffCell {
  std::vector<int64_t> index;  // logical index
  int64_t position = 0;        // row-major position in the logical array: the key of both cells
  int64_t offset_a = 0;        // element offsets in each layout
  int64_t offset_b = 0;
  bool moved = false;
};

struct DiffPicture {
  std::string layout_a;
  std::string layout_b;
  int bits_a = 0;
  int bits_b = 0;
  int64_t elements = 0;  // of the whole array
  int64_t moved = 0;     // of the whole array (from the exact count)
  int64_t grid_rows = 0;
  int64_t grid_cols = 0;
  std::vector<int64_t> row_extents;  // the dims flattened into grid rows
  GridWindow window;
  std::vector<DiffCell> cells;  // the window, row-major
  std::vector<int64_t> frame_a;
  std::vector<int64_t> frame_b;
};

// The grid has one column per value of the last dimension and one row per combination of the
// others. `moved` is the exact count of the whole array (moved_elements.h), for the caption.
// Throws Error(kInvalid) for an empty array, maps of different dims, or a window with too many
// cells; Error(kOutOfRange) for a window outside the grid.
DiffPicture build_diff_picture(const IndexMap& a, const IndexMap& b, std::string layout_a,
                               std::string layout_b, int64_t moved,
                               const DiffPictureOptions& options);

// Standalone SVG. Cells are <g class="grid-cell a-cell|b-cell moved|stayed"> with data-index,
// data-offset (the row-major position, shared by an element's two cells), data-offset-a,
// data-offset-b, data-moved ("1"/"0") and data-info.
std::string diff_svg(const DiffPicture& picture);
// The same in the interactive page: hovering or clicking a cell highlights the element on both
// grids; "#select=2,3" selects element (2,3).
std::string diff_html(const DiffPicture& picture);
// By the file's extension (.svg, .html, .htm); Error(kInvalid) for another, Error(kIo) on failure.
void write_diff_picture(const DiffPicture& picture, const std::string& path);

}  // namespace tessera::render
