// Layout.to_svg(), to_html(), save(), and the Jupyter hooks: the render library
// (tessera/render/*.h), the pictures of `tessera draw`.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "tessera/render/grid_window.h"
#include "tessera/render/notebook_output.h"
#include "tessera/render/picture_documents.h"
#include "tessera/render/xla_picture.h"

namespace nb = nanobind;

namespace tessera::python {
namespace {

render::XlaPicture picture(const xla::TiledLayout& layout, const std::optional<std::string>& window,
                           const std::optional<std::vector<int64_t>>& mark) {
  render::XlaPictureOptions options;
  if (window) options.window = render::parse_window(*window);
  options.mark = mark;
  return render::build_xla_picture(layout, options);
}

}  // namespace

void add_layout_render(nb::class_<xla::TiledLayout>& layout) {
  layout
      .def(
          "to_svg",
          [](const xla::TiledLayout& l, std::optional<std::string> window,
             std::optional<std::vector<int64_t>> mark) {
            return render::xla_svg(picture(l, window, mark));
          },
          nb::kw_only(), nb::arg("window") = nb::none(), nb::arg("mark") = nb::none(),
          "The layout as an SVG picture: the logical grid with tiles framed and each cell "
          "labelled\n"
          "with its linear index, beside memory in offset order. window: 'R0:R1,C0:C1' (half-open\n"
          "grid rows and columns, like `tessera draw --window`); by default the whole array when\n"
          "small, else its top-left corner. mark: a logical index drawn with a red dot (Figure 4).")
      .def(
          "to_html",
          [](const xla::TiledLayout& l, std::optional<std::string> window,
             std::optional<std::vector<int64_t>> mark) {
            return render::xla_html(picture(l, window, mark));
          },
          nb::kw_only(), nb::arg("window") = nb::none(), nb::arg("mark") = nb::none(),
          "A self-contained interactive HTML page of the picture (hover a cell to see its index,\n"
          "tile, offset and byte highlighted on both sides).")
      .def(
          "save",
          [](const xla::TiledLayout& l, const std::string& path, std::optional<std::string> window,
             std::optional<std::vector<int64_t>> mark) {
            render::write_picture(picture(l, window, mark), path);
          },
          nb::arg("path"), nb::kw_only(), nb::arg("window") = nb::none(),
          nb::arg("mark") = nb::none(),
          "Writes the picture to a .svg or .html file (like `tessera draw -o`).")
      // Notebook output: a scoped fragment of at most 300 KB (render/notebook_output.h); the
      // whole picture is one to_html()/save() call away.
      .def("_repr_svg_", [](const xla::TiledLayout& l) { return render::xla_notebook_svg(l); })
      .def("_repr_html_", [](const xla::TiledLayout& l) { return render::xla_notebook_html(l); });
}

}  // namespace tessera::python
