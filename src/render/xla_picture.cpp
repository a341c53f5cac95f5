#include "tessera/render/xla_picture.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_map>

#include "tessera/error.h"
#include "tessera/xla/layout_report.h"
#include "tessera/xla/notation.h"

namespace tessera::render {
namespace {

// Strip rows hold one level-1 tile when it is this small (Figure 1: 4 slots per row).
constexpr int64_t kMaxTileRowWidth = 32;
// Without --window, at most this many columns: one TPU tile's 128 lanes.
constexpr int64_t kDefaultGridColumns = 128;
// Without --window, columns (and rows of a matrix) of padding shown beyond the data: enough to
// see where the padding starts, few enough that a small array in big tiles (bf16[3,20]: 20 of 128
// columns, 3 of 16 rows) is drawn at a readable size, with memory beside it.
constexpr int64_t kPaddingColumnsShown = 4;
constexpr int64_t kPaddingRowsShown = 1;
// Weights that give neighbouring tiles different colours: tiles one apart along the minor
// tile axis differ by 1, along the next by 5; neither is 0 modulo the palette size of 12.
constexpr std::array<int64_t, 4> kColourWeights = {1, 5, 7, 11};
constexpr int kPaletteSize = 12;

int64_t linearize(const std::vector<int64_t>& coordinates, const std::vector<int64_t>& dims,
                  std::size_t count) {
  int64_t value = 0;
  for (std::size_t k = 0; k < count; ++k) value = value * dims[k] + coordinates[k];
  return value;
}

// Each logical dim's extent in the grid: level 1's padded size when the first tile maps plain
// dims (no '*', no added dims), else the logical size.
std::vector<int64_t> grid_extents(const xla::TiledLayout& layout) {
  const xla::Shape& shape = layout.shape();
  std::vector<int64_t> extents = shape.dimensions;
  if (layout.steps().empty()) return extents;
  const xla::TilingStep& first = layout.steps().front();
  if (first.prepended_dims != 0 || first.combined_dims != first.input_dims) return extents;
  const auto& m2m = shape.layout.minor_to_major;
  for (std::size_t k = 0; k < m2m.size(); ++k) {
    extents[m2m[m2m.size() - 1 - k]] = first.padded_dims[k];
  }
  return extents;
}

int64_t round_up(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// The window drawn without --window: default_window's cap on cells, narrowed to the data and a
// margin of padding. Rows are narrowed only for a matrix (rank 2), where the grid's rows are one
// dim; with more dims a row prefix would cut the other dims' data.
GridWindow data_window(const std::vector<int64_t>& dims, int64_t grid_rows, int64_t grid_cols,
                       int64_t max_cells) {
  GridWindow window = default_window(grid_rows, grid_cols, max_cells, kDefaultGridColumns);
  if (dims.empty()) return window;
  window.col_end =
      std::min(window.col_end, round_up(dims.back() + kPaddingColumnsShown, kPaddingColumnsShown));
  if (dims.size() == 2) {
    window.row_end = std::min(window.row_end, round_up(dims.front() + kPaddingRowsShown, 2));
  }
  return window;
}

class CellDescriber {
 public:
  explicit CellDescriber(const xla::TiledLayout& layout) : layout_(layout) {}

  PictureCell describe(const std::vector<int64_t>& index) const {
    PictureCell cell;
    cell.index = index;
    const auto& dims = layout_.shape().dimensions;
    for (std::size_t i = 0; i < index.size(); ++i)
      cell.padding = cell.padding || index[i] >= dims[i];
    const auto levels = layout_.coordinates_by_level(index);
    const auto& physical = layout_.physical_dims();
    cell.offset = linearize(levels.back(), physical, physical.size());
    if (layout_.steps().empty()) {
      cell.tile_text = "untiled";
      cell.colour = 0;
      return cell;
    }
    for (std::size_t k = 1; k < levels.size(); ++k) {
      const xla::TilingStep& step = layout_.steps()[k - 1];
      const std::size_t tile_part = levels[k].size() - step.tile_dims.size();
      cell.tile_ids.push_back(linearize(levels[k], step.output_dims, tile_part));
    }
    const xla::TilingStep& first = layout_.steps().front();
    const std::size_t tile_part = levels[1].size() - first.tile_dims.size();
    const std::vector<int64_t> tile(levels[1].begin(),
                                    levels[1].begin() + static_cast<std::ptrdiff_t>(tile_part));
    const std::vector<int64_t> within(levels[1].begin() + static_cast<std::ptrdiff_t>(tile_part),
                                      levels[1].end());
    cell.tile_text =
        fmt::format("tile {}, within {}", xla::format_dims(tile), xla::format_dims(within));
    int64_t colour = 0;
    for (std::size_t i = 0; i < tile.size() && i < kColourWeights.size(); ++i) {
      colour += tile[tile.size() - 1 - i] * kColourWeights[i];
    }
    cell.colour = cell.padding ? -1 : static_cast<int>(colour % kPaletteSize);
    return cell;
  }

 private:
  const xla::TiledLayout& layout_;
};

// Memory frames: a level whose tiles are contiguous runs of its tile's element count (true for
// every level of Figures 1 and 2 and of the TPU formats) is framed by offset, which frames the
// padding slots too; otherwise (Figure 4's (2,1,1,1)) by the data's own tile ids.
void frame_memory_by_offset(const xla::TiledLayout& layout, std::vector<PictureCell>& memory) {
  for (std::size_t k = 0; k < layout.steps().size(); ++k) {
    int64_t tile_elements = 1;
    for (int64_t t : layout.steps()[k].tile_dims) tile_elements *= t;
    std::map<int64_t, int64_t> block_of_tile, tile_of_block;
    bool contiguous = true;
    for (const PictureCell& slot : memory) {
      if (slot.tile_ids.size() <= k) continue;
      const int64_t block = slot.offset / tile_elements;
      const auto [a, new_tile] = block_of_tile.emplace(slot.tile_ids[k], block);
      const auto [b, new_block] = tile_of_block.emplace(block, slot.tile_ids[k]);
      contiguous = contiguous && a->second == block && b->second == slot.tile_ids[k];
    }
    for (PictureCell& slot : memory) {
      if (slot.tile_ids.size() < layout.steps().size())
        slot.tile_ids.resize(layout.steps().size(), -1);
      if (contiguous) {
        slot.tile_ids[k] = slot.offset / tile_elements;
      } else if (!slot.index) {
        slot.tile_ids[k] = -1 - slot.offset;  // padding of unknown tile: framed on its own
      }
    }
  }
}

}  // namespace

XlaPicture build_xla_picture(const xla::TiledLayout& layout, const XlaPictureOptions& options) {
  const xla::Shape& shape = layout.shape();
  if (layout.logical_elements() == 0) {
    throw Error(ErrorKind::kInvalid, fmt::format("{} has no elements: there is nothing to draw",
                                                 xla::print_shape(shape)));
  }
  XlaPicture picture;
  picture.layout = xla::print_shape(shape);
  for (const xla::TilingStep& step : layout.steps())
    picture.tile_names.push_back(xla::print_tile(step.tile));
  picture.element_bits = layout.element_bits();
  picture.size_bytes = layout.size_bytes();
  const std::vector<int64_t> extents = grid_extents(layout);
  const int rank = shape.rank();
  picture.grid_cols = rank == 0 ? 1 : extents.back();
  picture.row_extents.assign(extents.begin(), rank == 0 ? extents.end() : extents.end() - 1);
  picture.grid_rows = 1;
  for (int64_t e : picture.row_extents) picture.grid_rows *= e;
  picture.window =
      options.window
          ? resolve_window(*options.window, picture.grid_rows, picture.grid_cols, options.max_cells)
          : data_window(shape.dimensions, picture.grid_rows, picture.grid_cols, options.max_cells);
  const bool whole_grid = picture.window.cells() == picture.grid_rows * picture.grid_cols;
  const CellDescriber describer(layout);
  std::unordered_map<int64_t, std::size_t> grid_by_offset;
  for (int64_t row = picture.window.row_begin; row < picture.window.row_end; ++row) {
    std::vector<int64_t> index(picture.row_extents.size());
    int64_t rest = row;
    for (std::size_t i = index.size(); i-- > 0;) {
      index[i] = rest % picture.row_extents[i];
      rest /= picture.row_extents[i];
    }
    if (rank > 0) index.push_back(0);
    for (int64_t col = picture.window.col_begin; col < picture.window.col_end; ++col) {
      if (rank > 0) index.back() = col;
      picture.grid.push_back(describer.describe(index));
      grid_by_offset.emplace(picture.grid.back().offset, picture.grid.size() - 1);
    }
  }
  const int64_t size = layout.physical_elements();
  picture.memory_slots = size;
  int64_t tile_elements = 1;
  if (!layout.steps().empty()) {
    for (int64_t t : layout.steps().front().tile_dims) tile_elements *= t;
  }
  // A window narrowed to the data gets half-width strip rows, so that both sides fit a browser
  // window at a readable cell size (bf16[3,20]: 24 columns beside 16 slots a row).
  const int64_t strip_width =
      options.window || whole_grid ? kMaxTileRowWidth : kMaxTileRowWidth / 2;
  picture.memory_row_width =
      layout.steps().empty() ? std::min(picture.grid_cols, strip_width)
                             : (tile_elements <= kMaxTileRowWidth ? tile_elements : strip_width);
  const int64_t width = picture.memory_row_width;
  // Memory is drawn whole when it is small and the whole grid is; else the slots the window's
  // elements span (a default window narrowed to the data shows the memory of that data).
  if (size <= options.max_cells && (whole_grid || options.window)) {
    picture.memory_end = size;
  } else {
    // The memory the window's elements span, from the lowest, at most max_cells slots.
    int64_t lowest = size, highest = 0;
    for (const PictureCell& cell : picture.grid) {
      lowest = std::min(lowest, cell.offset);
      highest = std::max(highest, cell.offset);
    }
    picture.memory_begin = lowest / width * width;
    const int64_t span = (highest + width) / width * width - picture.memory_begin;
    picture.memory_end =
        std::min(size, picture.memory_begin +
                           std::min(span, std::max(width, options.max_cells / width * width)));
  }
  for (int64_t offset = picture.memory_begin; offset < picture.memory_end; ++offset) {
    if (auto it = grid_by_offset.find(offset); it != grid_by_offset.end()) {
      picture.memory.push_back(picture.grid[it->second]);
    } else if (auto index = layout.index_map().logical_index(offset)) {
      picture.memory.push_back(describer.describe(*index));
    } else {
      PictureCell slot;
      slot.padding = true;
      slot.offset = offset;
      slot.colour = -1;
      slot.tile_text = offset >= layout.tiled_elements() ? "tail padding (L)" : "padding";
      picture.memory.push_back(std::move(slot));
    }
  }
  frame_memory_by_offset(layout, picture.memory);
  if (options.mark) picture.marked_offset = layout.index_map().linear_index(*options.mark);
  return picture;
}

}  // namespace tessera::render
