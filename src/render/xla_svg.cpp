#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "render/svg_body.h"
#include "tessera/render/picture_documents.h"
#include "tessera/utf8_text.h"

namespace tessera::render {
namespace {

// Pastel fills for tiles (light enough for dark labels), then the frame styles per tile level:
// level 1 black (the tile), level 2 red (Figure 2's red boxes), deeper levels blue.
constexpr std::array<const char*, 12> kPalette = {"#9ecae1", "#fdae6b", "#a1d99b", "#fc9272",
                                                  "#bcbddc", "#fdd0a2", "#c7e9c0", "#dadaeb",
                                                  "#f7b6d2", "#c6dbef", "#e7cb94", "#b5cf6b"};
struct FrameStyle {
  const char* colour;
  double width;
};
constexpr std::array<FrameStyle, 3> kFrames = {{{"#222", 3.0}, {"#d62728", 1.6}, {"#1f5fb4", 1.2}}};

const FrameStyle& frame_style(std::size_t level) {
  return kFrames[std::min(level, kFrames.size() - 1)];
}

std::string join(const std::vector<int64_t>& values) {
  return fmt::format("{}", fmt::join(values, ","));
}

// Captions over the two halves; they say which part of a large array is shown.
std::string grid_caption(const XlaPicture& p) {
  std::string caption = "logical array: each cell shows its linear index";
  const bool windowed = p.window.row_begin != 0 || p.window.col_begin != 0 ||
                        p.window.row_end != p.grid_rows || p.window.col_end != p.grid_cols;
  if (windowed) {
    caption +=
        fmt::format(" (rows {}:{} of {}, cols {}:{} of {})", p.window.row_begin, p.window.row_end,
                    p.grid_rows, p.window.col_begin, p.window.col_end, p.grid_cols);
  }
  return caption;
}

std::string memory_caption(const XlaPicture& p) {
  // Short when only part of memory is drawn, so that the caption fits beside a narrow grid.
  if (p.memory_begin != 0 || p.memory_end != p.memory_slots) {
    return fmt::format("memory in offset order, offsets {}:{} of {}", p.memory_begin, p.memory_end,
                       p.memory_slots);
  }
  return "memory in offset order: each slot shows its logical index";
}

struct Geometry {
  double cell;
  double font;
  double grid_x, grid_y, memory_x, memory_y;
  int64_t grid_cols, grid_rows, memory_rows;
  double width, height;
};

Geometry geometry(const XlaPicture& p) {
  Geometry g;
  g.grid_cols = p.window.col_end - p.window.col_begin;
  g.grid_rows = p.window.row_end - p.window.row_begin;
  const int64_t slots = p.memory_end - p.memory_begin;
  g.memory_rows = (slots + p.memory_row_width - 1) / p.memory_row_width;
  const int64_t widest = std::max(g.grid_cols, p.memory_row_width);
  const int64_t tallest = std::max(g.grid_rows, g.memory_rows);
  g.cell = widest <= 16 && tallest <= 40 ? 34.0 : (widest <= 40 ? 24.0 : 14.0);
  g.grid_x = 80;
  g.grid_y = 96;
  // Smaller cells rather than memory beyond a browser window's width, down to the smallest size.
  constexpr double kReadableWidth = 1200;
  for (;;) {
    // Room for the grid's title (about 330 px) before the strip and its offset labels.
    g.memory_x = g.grid_x + std::max(static_cast<double>(g.grid_cols) * g.cell + 110, 420.0);
    g.width = g.memory_x + static_cast<double>(p.memory_row_width) * g.cell + 30;
    if (g.width <= kReadableWidth || g.cell <= 14.0) break;
    g.cell -= 1.0;
  }
  g.font = g.cell * 0.36;
  g.memory_y = g.grid_y;
  g.height = g.grid_y + static_cast<double>(tallest) * g.cell + 90;
  constexpr double kCaptionCharacterWidth = 7.4;  // 13 px sans-serif, generous
  g.width =
      std::max(g.width, g.memory_x - 50 +
                            kCaptionCharacterWidth * static_cast<double>(memory_caption(p).size()));
  return g;
}

std::string byte_address(const PictureCell& c, int bits) {
  const int64_t bit = c.offset * bits;
  if (bit % 8 == 0) return fmt::format("{}", bit / 8);
  return fmt::format("{} bit {}", bit / 8, bit % 8);
}

std::string cell_group(const PictureCell& c, const char* kind, double x, double y, double size,
                       double font, const std::string& label, int bits) {
  const std::string index = c.index ? join(*c.index) : std::string();
  std::string out = fmt::format(R"(<g class="{}" data-offset="{}")", kind, c.offset);
  if (c.index) out += fmt::format(R"( data-index="{}")", index);
  out += fmt::format(R"( data-tile="{}" data-byte="{}" data-padding="{}">)",
                     xml_escape(c.tile_text), byte_address(c, bits), c.padding ? 1 : 0);
  const std::string fill = c.colour >= 0 ? kPalette[static_cast<std::size_t>(c.colour)] : "#ffffff";
  const char* stroke =
      c.padding ? R"( stroke="#b0b0b0" stroke-dasharray="3,2")" : R"( stroke="#ffffff")";
  out += fmt::format(
      R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}"{} stroke-width="1"/>)",
      x, y, size, size, fill, stroke);
  if (!label.empty()) {
    out += fmt::format(
        R"(<text x="{:.1f}" y="{:.1f}" font-size="{:.1f}" text-anchor="middle" dominant-baseline="central">{}</text>)",
        x + size / 2, y + size / 2, font, xml_escape(label));
  }
  out += fmt::format("<title>{}{}, offset {}, byte {}</title></g>\n", c.padding ? "padding " : "",
                     c.index ? "(" + index + ")" : std::string("slot"), c.offset,
                     byte_address(c, bits));
  return out;
}

// Frames: a line on every edge between two cells of different tiles, per level, so tiles of
// any shape (and Figure 4's pairs across tiles) are outlined exactly.
std::string frames(const std::vector<PictureCell>& cells, int64_t columns, double x0, double y0,
                   double cell, std::size_t levels) {
  std::string out;
  const auto rows =
      static_cast<int64_t>((static_cast<int64_t>(cells.size()) + columns - 1) / columns);
  auto at = [&](int64_t r, int64_t c) -> const PictureCell* {
    if (r < 0 || c < 0 || r >= rows || c >= columns) return nullptr;
    const auto i = static_cast<std::size_t>(r * columns + c);
    return i < cells.size() ? &cells[i] : nullptr;
  };
  for (std::size_t level = levels; level-- > 0;) {
    const FrameStyle& style = frame_style(level);
    std::string path;
    auto differs = [&](const PictureCell* a, const PictureCell* b) {
      if (!a || !b) return a != b;
      // Nested tiles are framed where they hold data; inside padding they would only add noise.
      if (level > 0 && a->padding && b->padding) return false;
      const int64_t ia = a->tile_ids.size() > level ? a->tile_ids[level] : -1;
      const int64_t ib = b->tile_ids.size() > level ? b->tile_ids[level] : -1;
      return ia != ib;
    };
    for (int64_t r = 0; r <= rows; ++r) {
      for (int64_t c = 0; c <= columns; ++c) {
        const PictureCell* here = at(r, c);
        const double x = x0 + static_cast<double>(c) * cell;
        const double y = y0 + static_cast<double>(r) * cell;
        if (c < columns && (here || at(r - 1, c)) && differs(here, at(r - 1, c))) {
          path += fmt::format("M{:.1f},{:.1f}h{:.1f}", x, y, cell);
        }
        if (r < rows && (here || at(r, c - 1)) && differs(here, at(r, c - 1))) {
          path += fmt::format("M{:.1f},{:.1f}v{:.1f}", x, y, cell);
        }
      }
    }
    if (!path.empty()) {
      out += fmt::format(
          R"(<path d="{}" fill="none" stroke="{}" stroke-width="{}" stroke-linecap="square"/>)",
          path, style.colour, style.width);
      out += "\n";
    }
  }
  return out;
}

std::string marker(const std::vector<PictureCell>& cells, int64_t columns, double x0, double y0,
                   double cell, int64_t offset) {
  std::string out;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (cells[i].offset != offset || (cells[i].padding && !cells[i].index)) continue;
    const double x = x0 + static_cast<double>(static_cast<int64_t>(i) % columns) * cell;
    const double y = y0 + static_cast<double>(static_cast<int64_t>(i) / columns) * cell;
    out +=
        fmt::format(R"(<circle class="mark" cx="{:.1f}" cy="{:.1f}" r="{:.1f}" fill="#e00000"/>)",
                    x + cell * 0.82, y + cell * 0.2, cell * 0.13);
    out += "\n";
  }
  return out;
}

}  // namespace

// Control characters and bytes that are not UTF-8 cannot appear in XML at all, not even as
// character references, so they are drawn as their escapes (`\u0001`, `\xc3`) first.
std::string xml_escape(std::string_view text) {
  std::string out;
  for (char c : printable_utf8(text)) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string svg_open(double width, double height) {
  return fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" width="{:.0f}" height="{:.0f}" viewBox="0 0 {:.0f} {:.0f}" font-family="DejaVu Sans, Arial, sans-serif">)"
      "\n"
      R"(<rect x="0" y="0" width="{:.0f}" height="{:.0f}" fill="#ffffff"/>)"
      "\n",
      width, height, width, height, width, height);
}

std::string grid_labels(const GridWindow& window, const GridPlacement& at,
                        const std::function<std::string(int64_t)>& row_label) {
  std::string out;
  const int64_t every = at.cell >= 24 ? 1 : 8;
  for (int64_t c = 0; c < window.col_end - window.col_begin; ++c) {
    const int64_t col = window.col_begin + c;
    if (col % every != 0) continue;
    out += fmt::format(
        R"(<text x="{:.1f}" y="{:.1f}" font-size="{:.1f}" fill="#666" text-anchor="middle">{}</text>)",
        at.x + (static_cast<double>(c) + 0.5) * at.cell, at.y - 6, at.font, col);
  }
  for (int64_t r = 0; r < window.row_end - window.row_begin; ++r) {
    if ((window.row_begin + r) % every != 0) continue;
    const std::string label = row_label(r);
    if (label.empty()) continue;
    out += fmt::format(
        R"(<text x="{:.1f}" y="{:.1f}" font-size="{:.1f}" fill="#666" text-anchor="end" dominant-baseline="central">{}</text>)",
        at.x - 6, at.y + (static_cast<double>(r) + 0.5) * at.cell, at.font, label);
  }
  return out;
}

std::string svg_body(const XlaPicture& p) {
  const Geometry g = geometry(p);
  std::string out = svg_open(g.width, g.height);
  out += fmt::format(R"(<text x="20" y="30" font-size="18" font-weight="bold">{}</text>)",
                     xml_escape(p.layout));
  out += fmt::format(
      R"(<text x="20" y="52" font-size="13" fill="#444">{} bytes in memory; tiles {}</text>)",
      p.size_bytes,
      p.tile_names.empty() ? std::string("none (untiled)")
                           : fmt::format("{}", fmt::join(p.tile_names, "")));
  out += "\n";
  const std::string grid_title = grid_caption(p);
  out += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" font-size="13">{}</text>)", g.grid_x,
                     g.grid_y - 26, grid_title);
  const std::string memory_title = memory_caption(p);
  out += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" font-size="13">{}</text>)", g.memory_x - 50,
                     g.grid_y - 26, memory_title);
  out += "\n";
  out += grid_labels(p.window, {g.grid_x, g.grid_y, g.cell, g.font}, [&](int64_t r) {
    const std::size_t first = static_cast<std::size_t>(r * g.grid_cols);
    if (first >= p.grid.size()) return std::string();
    std::vector<int64_t> row_index = p.grid[first].index.value_or(std::vector<int64_t>{});
    if (!row_index.empty() && !p.row_extents.empty()) row_index.pop_back();
    return row_index.empty() ? std::string("0") : join(row_index);
  });
  for (std::size_t i = 0; i < p.grid.size(); ++i) {
    const PictureCell& c = p.grid[i];
    const double x = g.grid_x + static_cast<double>(static_cast<int64_t>(i) % g.grid_cols) * g.cell;
    const double y = g.grid_y + static_cast<double>(static_cast<int64_t>(i) / g.grid_cols) * g.cell;
    out += cell_group(c, "grid-cell", x, y, g.cell, g.font,
                      c.padding ? "" : fmt::format("{}", c.offset), p.element_bits);
  }
  const std::size_t levels = p.tile_names.size();
  out += frames(p.grid, g.grid_cols, g.grid_x, g.grid_y, g.cell, levels);
  for (int64_t r = 0; r < g.memory_rows; ++r) {
    out += fmt::format(
        R"(<text x="{:.1f}" y="{:.1f}" font-size="{:.1f}" fill="#666" text-anchor="end" dominant-baseline="central">{}</text>)",
        g.memory_x - 6, g.memory_y + (static_cast<double>(r) + 0.5) * g.cell, g.font,
        p.memory_begin + r * p.memory_row_width);
  }
  for (std::size_t i = 0; i < p.memory.size(); ++i) {
    const PictureCell& c = p.memory[i];
    const double x =
        g.memory_x + static_cast<double>(static_cast<int64_t>(i) % p.memory_row_width) * g.cell;
    const double y =
        g.memory_y + static_cast<double>(static_cast<int64_t>(i) / p.memory_row_width) * g.cell;
    std::string label;
    if (c.index && !c.padding && g.cell >= 24) {
      label = join(*c.index);
      if (label.size() > 5) label.clear();  // too long to read in a cell: the tooltip has it
    }
    out += cell_group(c, "memory-slot", x, y, g.cell, g.font * (label.size() > 3 ? 0.8 : 1.0),
                      label, p.element_bits);
  }
  out += frames(p.memory, p.memory_row_width, g.memory_x, g.memory_y, g.cell, levels);
  if (p.marked_offset) {
    out += marker(p.grid, g.grid_cols, g.grid_x, g.grid_y, g.cell, *p.marked_offset);
    out += marker(p.memory, p.memory_row_width, g.memory_x, g.memory_y, g.cell, *p.marked_offset);
  }
  // Legend.
  double lx = 20;
  const double ly = g.height - 40;
  out += fmt::format(
      R"(<rect x="{:.0f}" y="{:.0f}" width="16" height="16" fill="#fff" stroke="#b0b0b0" stroke-dasharray="3,2"/><text x="{:.0f}" y="{:.0f}" font-size="12">padding</text>)",
      lx, ly, lx + 22, ly + 12);
  lx += 100;
  for (std::size_t level = 0; level < levels; ++level) {
    const FrameStyle& style = frame_style(level);
    out += fmt::format(
        R"(<path d="M{:.0f},{:.0f}h28" stroke="{}" stroke-width="{}"/><text x="{:.0f}" y="{:.0f}" font-size="12">level {} tile {}</text>)",
        lx, ly + 8, style.colour, style.width, lx + 34, ly + 12, level + 1,
        xml_escape(p.tile_names[level]));
    lx += 190;
  }
  if (p.marked_offset) {
    out += fmt::format(
        R"(<circle cx="{:.0f}" cy="{:.0f}" r="5" fill="#e00000"/><text x="{:.0f}" y="{:.0f}" font-size="12">marked element: offset {}</text>)",
        lx + 6, ly + 8, lx + 16, ly + 12, *p.marked_offset);
  }
  out += "\n</svg>\n";
  return out;
}

std::string xla_svg(const XlaPicture& picture) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + svg_body(picture);
}

}  // namespace tessera::render
