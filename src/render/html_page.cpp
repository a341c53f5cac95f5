#include "render/html_page.h"

#include <fmt/format.h>

#include "render/svg_body.h"
#include "tessera/render/picture_documents.h"

namespace tessera::render {
namespace {

// The page's behaviour, inline so the file works offline: one delegated handler for hover and
// click; every drawing of the element (grid cell and memory slot share data-offset) gets the
// class "selected"; the URL fragment replays a hover or click (what the browser tests use).
constexpr const char* kScript = R"JS(
(function () {
  var info = document.getElementById('info');
  var pinned = null;
  function cellOf(node) { return node && node.closest ? node.closest('[data-offset]') : null; }
  function show(cell) {
    document.querySelectorAll('.selected').forEach(function (e) { e.classList.remove('selected'); });
    if (!cell) { info.textContent = 'Hover or click a cell.'; return; }
    var offset = cell.getAttribute('data-offset');
    document.querySelectorAll('[data-offset="' + offset + '"]').forEach(function (e) {
      e.classList.add('selected');
    });
    var index = cell.getAttribute('data-index');
    var padding = cell.getAttribute('data-padding') === '1';
    info.setAttribute('data-selected-offset', offset);
    if (cell.hasAttribute('data-info')) { info.textContent = cell.getAttribute('data-info'); return; }
    info.textContent = (padding ? 'padding' : 'element') +
        (index !== null ? ' (' + index + ')' : '') + ' | ' + cell.getAttribute('data-tile') +
        ' | offset ' + offset + ' | byte ' + cell.getAttribute('data-byte');
  }
  document.addEventListener('mouseover', function (e) {
    var cell = cellOf(e.target);
    if (cell && pinned === null) show(cell);
  });
  document.addEventListener('click', function (e) {
    var cell = cellOf(e.target);
    pinned = cell;
    show(cell);
  });
  function fromFragment() {
    var m = /^#(hover|select|offset)=([0-9,]+)$/.exec(decodeURIComponent(location.hash));
    if (!m) return;
    var selector = m[1] === 'offset' ? '[data-offset="' + m[2] + '"]'
                                     : '.grid-cell[data-index="' + m[2] + '"]';
    var cell = document.querySelector(selector);
    if (!cell) { info.textContent = 'no cell ' + m[2] + ' in this picture'; return; }
    var rect = cell.querySelector('rect');
    var type = m[1] === 'hover' ? 'mouseover' : 'click';
    rect.dispatchEvent(new MouseEvent(type, {bubbles: true}));
  }
  window.addEventListener('hashchange', fromFragment);
  fromFragment();
})();
)JS";

constexpr const char* kStyle = R"CSS(
body { font-family: "DejaVu Sans", Arial, sans-serif; margin: 16px; color: #222; background: #fff; }
#info { font-size: 15px; padding: 8px 12px; margin: 8px 0; border: 1px solid #ccc;
        background: #fafafa; min-height: 1.2em; }
.grid-cell, .memory-slot { cursor: pointer; }
.selected rect { fill: #ffd400 !important; stroke: #e000e0 !important; stroke-width: 4px !important;
                 stroke-dasharray: none !important; }
.selected text { font-weight: bold; }
)CSS";

}  // namespace

std::string html_page(std::string_view title, const std::string& svg) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += fmt::format("<title>{} - tessera</title>\n<style>{}</style>\n</head>\n<body>\n",
                     xml_escape(title), kStyle);
  out += "<div id=\"info\">Hover or click a cell.</div>\n";
  out += svg;
  out += fmt::format("<script>{}</script>\n</body>\n</html>\n", kScript);
  return out;
}

std::string xla_html(const XlaPicture& picture) {
  return html_page(picture.layout, svg_body(picture));
}

}  // namespace tessera::render
