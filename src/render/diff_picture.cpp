#include "tessera/render/diff_picture.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "render/html_page.h"
#include "render/picture_file.h"
#include "render/svg_body.h"
#include "tessera/error.h"
#include "tessera/relayout/moved_elements.h"
#include "tessera/render/picture_documents.h"

namespace tessera::render {
namespace {

// Without --window, at most this many columns: one TPU tile's 128 lanes.
constexpr int64_t kDefaultGridColumns = 128;
constexpr const char* kMovedFill = "#fdae6b";   // orange: the element moves
constexpr const char* kStayedFill = "#c7e9c0";  // green: it keeps its bytes
constexpr const char* kFrameColour = "#222";

struct Geometry {
  double cell, font;
  double grid_y, a_x, b_x;
  int64_t cols, rows;
  double width, height;
};

Geometry geometry(const DiffPicture& p) {
  Geometry g;
  g.cols = p.window.col_end - p.window.col_begin;
  g.rows = p.window.row_end - p.window.row_begin;
  g.cell = g.cols <= 16 && g.rows <= 40 ? 34.0 : (g.cols <= 40 ? 24.0 : 14.0);
  g.font = g.cell * 0.34;
  g.grid_y = 120;
  g.a_x = 80;
  const double grid_width = static_cast<double>(g.cols) * g.cell;
  // Room between the grids for the second one's row labels, and for its caption.
  g.b_x = g.a_x + std::max(grid_width + 90, 420.0);
  g.width = std::max(g.b_x + grid_width + 40, 900.0);
  g.height = g.grid_y + static_cast<double>(g.rows) * g.cell + 80;
  return g;
}

bool same_block(const DiffCell& x, const DiffCell& y, const std::vector<int64_t>& block) {
  for (std::size_t d = 0; d < block.size(); ++d) {
    if (x.index[d] / block[d] != y.index[d] / block[d]) return false;
  }
  return true;
}

std::string byte_text(int64_t offset, int bits) {
  const int64_t bit = offset * bits;
  return bit % 8 == 0 ? fmt::format("byte {}", bit / 8)
                      : fmt::format("byte {} bit {}", bit / 8, bit % 8);
}

std::string cell_group(const DiffPicture& p, const DiffCell& c, bool side_a, double x, double y,
                       const Geometry& g) {
  const std::string index = fmt::format("{}", fmt::join(c.index, ","));
  const int64_t offset = side_a ? c.offset_a : c.offset_b;
  const std::string info = fmt::format(
      "element ({}) {}: a offset {} ({}), b offset {} ({})", index, c.moved ? "moves" : "stays",
      c.offset_a, byte_text(c.offset_a, p.bits_a), c.offset_b, byte_text(c.offset_b, p.bits_b));
  std::string out = fmt::format(
      R"(<g class="grid-cell {}-cell {}" data-offset="{}" data-index="{}" data-offset-a="{}" )"
      R"(data-offset-b="{}" data-moved="{}" data-info="{}">)",
      side_a ? "a" : "b", c.moved ? "moved" : "stayed", c.position, index, c.offset_a, c.offset_b,
      c.moved ? 1 : 0, xml_escape(info));
  out += fmt::format(
      R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}" stroke="#ffffff" stroke-width="1"/>)",
      x, y, g.cell, g.cell, c.moved ? kMovedFill : kStayedFill);
  const std::string label = fmt::format("{}", offset);
  if (g.cell >= 24 && label.size() <= 6) {
    out += fmt::format(
        R"(<text x="{:.1f}" y="{:.1f}" font-size="{:.1f}" text-anchor="middle" dominant-baseline="central">{}</text>)",
        x + g.cell / 2, y + g.cell / 2, label.size() > 4 ? g.font * 0.8 : g.font, label);
  }
  out += fmt::format("<title>{}</title></g>\n", xml_escape(info));
  return out;
}

// Lines on every edge between cells of different tiles of `block`.
std::string frames(const DiffPicture& p, const std::vector<int64_t>& block, double x0,
                   const Geometry& g) {
  if (block.empty() || block.size() != p.cells.front().index.size()) return "";
  const auto at = [&](int64_t r, int64_t c) -> const DiffCell& {
    return p.cells[static_cast<std::size_t>(r * g.cols + c)];
  };
  std::string path;
  for (int64_t r = 0; r < g.rows; ++r) {
    for (int64_t c = 0; c < g.cols; ++c) {
      const double x = x0 + static_cast<double>(c) * g.cell;
      const double y = g.grid_y + static_cast<double>(r) * g.cell;
      if (r > 0 && !same_block(at(r - 1, c), at(r, c), block))
        path += fmt::format("M{:.1f},{:.1f}h{:.1f}", x, y, g.cell);
      if (c > 0 && !same_block(at(r, c - 1), at(r, c), block))
        path += fmt::format("M{:.1f},{:.1f}v{:.1f}", x, y, g.cell);
    }
  }
  const double w = static_cast<double>(g.cols) * g.cell, h = static_cast<double>(g.rows) * g.cell;
  path += fmt::format("M{:.1f},{:.1f}h{:.1f}v{:.1f}h{:.1f}z", x0, g.grid_y, w, h, -w);
  return fmt::format(
             R"(<path class="tile-frame" d="{}" fill="none" stroke="{}" stroke-width="2.5" stroke-linecap="square"/>)",
             path, kFrameColour) +
         "\n";
}

std::string labels(const DiffPicture& p, double x0, const Geometry& g) {
  return grid_labels(p.window, {x0, g.grid_y, g.cell, g.font}, [&](int64_t r) {
    std::vector<int64_t> row = p.cells[static_cast<std::size_t>(r * g.cols)].index;
    if (!row.empty()) row.pop_back();
    return row.empty() ? std::string("0") : fmt::format("{}", fmt::join(row, ","));
  });
}

std::string svg_body(const DiffPicture& p) {
  const Geometry g = geometry(p);
  std::string out = svg_open(g.width, g.height);
  out += fmt::format(
      "<text x=\"20\" y=\"30\" font-size=\"18\" font-weight=\"bold\">{} moved of {} elements "
      "({:.1f}%)</text>\n",
      p.moved, p.elements,
      p.elements > 0 ? 100.0 * static_cast<double>(p.moved) / static_cast<double>(p.elements)
                     : 0.0);
  const bool windowed = p.window.row_begin != 0 || p.window.col_begin != 0 ||
                        p.window.row_end != p.grid_rows || p.window.col_end != p.grid_cols;
  out += fmt::format(
      "<text x=\"20\" y=\"52\" font-size=\"13\" fill=\"#444\">each cell shows the element's "
      "offset in that layout{}</text>\n",
      windowed ? fmt::format("; rows {}:{} of {}, cols {}:{} of {}", p.window.row_begin,
                             p.window.row_end, p.grid_rows, p.window.col_begin, p.window.col_end,
                             p.grid_cols)
               : "");
  for (const bool side_a : {true, false}) {
    const double x0 = side_a ? g.a_x : g.b_x;
    out += fmt::format(
        R"(<text x="{:.1f}" y="{:.1f}" font-size="13" font-weight="bold">{}: {}</text>)", x0,
        g.grid_y - 30, side_a ? "a" : "b", xml_escape(side_a ? p.layout_a : p.layout_b));
    out += "\n" + labels(p, x0, g);
    for (std::size_t i = 0; i < p.cells.size(); ++i) {
      const double x = x0 + static_cast<double>(static_cast<int64_t>(i) % g.cols) * g.cell;
      const double y = g.grid_y + static_cast<double>(static_cast<int64_t>(i) / g.cols) * g.cell;
      out += cell_group(p, p.cells[i], side_a, x, y, g);
    }
    out += frames(p, side_a ? p.frame_a : p.frame_b, x0, g);
  }
  const double ly = g.height - 40;
  out += fmt::format(
      R"(<rect x="20" y="{:.0f}" width="16" height="16" fill="{}"/><text x="42" y="{:.0f}" font-size="12">stays: the same bytes in a and b</text>)",
      ly, kStayedFill, ly + 12);
  out += fmt::format(
      R"(<rect x="300" y="{:.0f}" width="16" height="16" fill="{}"/><text x="322" y="{:.0f}" font-size="12">moves</text>)",
      ly, kMovedFill, ly + 12);
  out += fmt::format(
      R"(<path d="M420,{:.0f}h28" stroke="{}" stroke-width="2.5"/><text x="454" y="{:.0f}" font-size="12">each side's tiles</text>)",
      ly + 8, kFrameColour, ly + 12);
  out += "\n</svg>\n";
  return out;
}

}  // namespace

DiffPicture build_diff_picture(const IndexMap& a, const IndexMap& b, std::string layout_a,
                               std::string layout_b, int64_t moved,
                               const DiffPictureOptions& options) {
  if (a.dims() != b.dims()) {
    throw Error(ErrorKind::kInvalid, "a diff picture needs two layouts of one array");
  }
  if (a.logical_elements() == 0) {
    throw Error(ErrorKind::kInvalid, "the array has no elements: there is nothing to draw");
  }
  DiffPicture p;
  p.layout_a = std::move(layout_a);
  p.layout_b = std::move(layout_b);
  p.bits_a = a.element_bits();
  p.bits_b = b.element_bits();
  p.elements = a.logical_elements();
  p.moved = moved;
  p.frame_a = options.frame_a;
  p.frame_b = options.frame_b;
  const std::vector<int64_t>& dims = a.dims();
  p.grid_cols = dims.empty() ? 1 : dims.back();
  p.row_extents.assign(dims.begin(), dims.empty() ? dims.end() : dims.end() - 1);
  p.grid_rows = 1;
  for (int64_t e : p.row_extents) p.grid_rows *= e;
  p.window = options.window
                 ? resolve_window(*options.window, p.grid_rows, p.grid_cols, options.max_cells)
                 : default_window(p.grid_rows, p.grid_cols, options.max_cells, kDefaultGridColumns);
  for (int64_t row = p.window.row_begin; row < p.window.row_end; ++row) {
    std::vector<int64_t> index(p.row_extents.size());
    int64_t rest = row;
    for (std::size_t i = index.size(); i-- > 0;) {
      index[i] = rest % p.row_extents[i];
      rest /= p.row_extents[i];
    }
    if (!dims.empty()) index.push_back(0);
    for (int64_t col = p.window.col_begin; col < p.window.col_end; ++col) {
      if (!dims.empty()) index.back() = col;
      DiffCell cell;
      cell.index = index;
      cell.position = row * p.grid_cols + col;
      cell.offset_a = a.linear_index(index);
      cell.offset_b = b.linear_index(index);
      cell.moved = !relayout::same_position(cell.offset_a, p.bits_a, cell.offset_b, p.bits_b);
      p.cells.push_back(std::move(cell));
    }
  }
  return p;
}

std::string diff_svg(const DiffPicture& picture) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + svg_body(picture);
}

std::string diff_html(const DiffPicture& picture) {
  return html_page(picture.layout_a + " -> " + picture.layout_b, svg_body(picture));
}

void write_diff_picture(const DiffPicture& picture, const std::string& path) {
  write_document(path, [&](PictureFormat format) {
    return format == PictureFormat::kSvg ? diff_svg(picture) : diff_html(picture);
  });
}

}  // namespace tessera::render
