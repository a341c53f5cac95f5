// What a picture of an XLA layout shows, before it becomes SVG or HTML: the logical array as a
// grid (tiles coloured and framed, nested tiles framed again, padding blank; tiled layout spec,
// Figures 1, 2 and 4) and memory as a strip of slots in offset order (Figure 1's right half).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tessera/render/grid_window.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::render {

// One element position: a grid cell or a memory slot.
struct PictureCell {
  std::optional<std::vector<int64_t>> index;  // logical index; nullopt: padding of unknown place
  bool padding = false;
  int64_t offset = 0;             // element offset in the buffer
  std::vector<int64_t> tile_ids;  // per tile level: which tile (for colour and frames)
  std::string tile_text;          // "tile (1,1), within (0,1)" (level 1)
  int colour = -1;                // palette entry of its level-1 tile; -1: blank
};

struct XlaPictureOptions {
  std::optional<GridWindow> window;          // default: default_window(...)
  std::optional<std::vector<int64_t>> mark;  // a logical index marked by a red dot (Figure 4)
  int64_t max_cells = 4096;                  // per side: never a huge picture
};

struct XlaPicture {
  std::string layout;                   // canonical shape
  std::vector<std::string> tile_names;  // "(2,2)" per level
  int element_bits = 0;
  int64_t size_bytes = 0;
  int64_t grid_rows = 0;  // the whole grid (level-1 padding included)
  int64_t grid_cols = 0;
  std::vector<int64_t> row_extents;  // the dims flattened into grid rows
  GridWindow window;
  std::vector<PictureCell> grid;  // the window, row-major
  int64_t memory_begin = 0;       // slots [memory_begin, memory_end) are drawn
  int64_t memory_end = 0;
  int64_t memory_row_width = 1;  // slots per strip row
  int64_t memory_slots = 0;      // all element slots of the buffer
  std::vector<PictureCell> memory;
  std::optional<int64_t> marked_offset;
};

// Builds the picture. The grid has one column per value of the last logical dim and one row
// per combination of the others, each dim extended to level 1's padding when the first tile
// has no '*'. Example: f32[3,5]{1,0:T(2,2)} -> a 4 x 6 grid, cell (2,3) has offset 17 and
// tile_text "tile (1,1), within (0,1)"; memory rows of 4 slots (one tile each), 24 slots.
// Throws Error(kOutOfRange)/(kInvalid) for a window outside the grid or with too many cells,
// and for a mark that is not a logical index.
XlaPicture build_xla_picture(const xla::TiledLayout& layout, const XlaPictureOptions& options);

}  // namespace tessera::render
