#include "tessera/render/notebook_output.h"

#include <fmt/format.h>

#include <atomic>
#include <random>

#include "render/svg_body.h"
#include "tessera/render/picture_documents.h"
#include "tessera/render/xla_picture.h"

namespace tessera::render {
namespace {

// The page script of html_page.cpp, confined to one output: `root` instead of `document`, no
// URL-fragment replay (the notebook's URL is not this picture's).
constexpr const char* kScopedScript = R"JS(
(function () {
  var root = document.getElementById('{ID}');
  var info = root.querySelector('.tessera-info');
  var pinned = null;
  function cellOf(node) { return node && node.closest ? node.closest('[data-offset]') : null; }
  function show(cell) {
    root.querySelectorAll('.selected').forEach(function (e) { e.classList.remove('selected'); });
    if (!cell) { info.textContent = 'Hover or click a cell.'; return; }
    var offset = cell.getAttribute('data-offset');
    root.querySelectorAll('[data-offset="' + offset + '"]').forEach(function (e) {
      e.classList.add('selected');
    });
    var index = cell.getAttribute('data-index');
    var padding = cell.getAttribute('data-padding') === '1';
    if (cell.hasAttribute('data-info')) { info.textContent = cell.getAttribute('data-info'); return; }
    info.textContent = (padding ? 'padding' : 'element') +
        (index !== null ? ' (' + index + ')' : '') + ' | ' + cell.getAttribute('data-tile') +
        ' | offset ' + offset + ' | byte ' + cell.getAttribute('data-byte');
  }
  root.addEventListener('mouseover', function (e) {
    var cell = cellOf(e.target);
    if (cell && pinned === null) show(cell);
  });
  root.addEventListener('click', function (e) { pinned = cellOf(e.target); show(pinned); });
})();
)JS";

constexpr const char* kScopedStyle = R"CSS(
#{ID} { font-family: "DejaVu Sans", Arial, sans-serif; color: #222; background: #fff; }
#{ID} .tessera-info { font-size: 15px; padding: 8px 12px; margin: 8px 0; border: 1px solid #ccc;
        background: #fafafa; min-height: 1.2em; }
#{ID} .tessera-note { font-size: 13px; color: #555; }
#{ID} .grid-cell, #{ID} .memory-slot { cursor: pointer; }
#{ID} .selected rect { fill: #ffd400 !important; stroke: #e000e0 !important;
        stroke-width: 4px !important; stroke-dasharray: none !important; }
#{ID} .selected text { font-weight: bold; }
)CSS";

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// Unique within the process (a counter) and across kernels whose saved outputs share one page
// (a random start).
std::string fresh_id() {
  static std::atomic<uint64_t> next{std::random_device{}() * uint64_t{0x9e3779b97f4a7c15}};
  return fmt::format("tessera-{:016x}", next.fetch_add(1));
}

// The default picture, its window halved (rows first, then columns) while `render` gives more
// than max_bytes.
template <typename Render>
std::string windowed(const xla::TiledLayout& layout, std::size_t max_bytes, Render render) {
  XlaPicture picture = build_xla_picture(layout, {});
  const auto partial = [](const XlaPicture& p) {
    const GridWindow& w = p.window;
    return w.row_begin != 0 || w.col_begin != 0 || w.row_end != p.grid_rows ||
           w.col_end != p.grid_cols;
  };
  std::string out = render(picture, partial(picture));
  while (out.size() > max_bytes && picture.window.cells() > 1) {
    GridWindow w = picture.window;
    if (w.row_end - w.row_begin > 1) {
      w.row_end = w.row_begin + (w.row_end - w.row_begin) / 2;
    } else {
      w.col_end = w.col_begin + (w.col_end - w.col_begin) / 2;
    }
    XlaPictureOptions options;
    options.window = w;
    picture = build_xla_picture(layout, options);
    out = render(picture, partial(picture));
  }
  return out;
}

}  // namespace

std::string xla_notebook_html(const xla::TiledLayout& layout, std::size_t max_bytes) {
  return windowed(layout, max_bytes, [](const XlaPicture& picture, bool partial) {
    const std::string id = fresh_id();
    std::string out = fmt::format("<div class=\"tessera-picture\" id=\"{}\">\n<style>{}</style>\n",
                                  id, replace_all(kScopedStyle, "{ID}", id));
    if (partial) {
      const GridWindow& w = picture.window;
      out += fmt::format(
          "<div class=\"tessera-note\">{}: showing grid rows {}:{} and columns {}:{} of {} x {}; "
          "layout.to_html(window=\"R0:R1,C0:C1\") or layout.save(\"x.html\") draws more.</div>\n",
          xml_escape(picture.layout), w.row_begin, w.row_end, w.col_begin, w.col_end,
          picture.grid_rows, picture.grid_cols);
    }
    out += "<div class=\"tessera-info\">Hover or click a cell.</div>\n";
    out += svg_body(picture);
    out += fmt::format("<script>{}</script>\n</div>\n", replace_all(kScopedScript, "{ID}", id));
    return out;
  });
}

std::string xla_notebook_svg(const xla::TiledLayout& layout, std::size_t max_bytes) {
  return windowed(layout, max_bytes,
                  [](const XlaPicture& picture, bool) { return svg_body(picture); });
}

}  // namespace tessera::render
