// explain() and the pictures of NPU placements (tessera/explain/npu_explanation.h,
// tessera/render/npu_picture.h), added to tessera.npu.Tensor and tessera.npu.Matrix alike.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <optional>
#include <string>

#include "python_values.h"
#include "tessera/explain/npu_explanation.h"
#include "tessera/render/grid_window.h"
#include "tessera/render/npu_picture.h"

namespace tessera::python {

inline explain::NpuExplanation explain_placement(const npu::LocalTensor& tensor,
                                                 std::size_t limit) {
  return explain::explain_local_tensor(tensor, limit);
}
inline explain::NpuExplanation explain_placement(const npu::MatrixLayout& matrix,
                                                 std::size_t limit) {
  return explain::explain_matrix(matrix, limit);
}

// Placement: npu::LocalTensor or a class derived from npu::MatrixLayout.
template <typename Placement, typename Base>
void add_npu_explain_and_pictures(nanobind::class_<Placement>& cls) {
  namespace nb = nanobind;
  auto picture = [](const Placement& p, const std::optional<std::string>& window) {
    render::NpuPictureOptions options;
    if (window) options.window = render::parse_window(*window);
    return render::build_npu_picture(static_cast<const Base&>(p), options);
  };
  cls.def(
         "explain",
         [](const Placement& p, std::size_t max_suggestions) {
           return json_to_python(explain::npu_explanation_json(
               explain_placement(static_cast<const Base&>(p), max_suggestions)));
         },
         nb::kw_only(), nb::arg("max_suggestions") = 10,
         "The report of `tessera explain npu ... --json` as a dict: bytes used and wasted NPU by\n"
         "NPU with banks touched, and other placements (start NPU, compact vs aligned, matrix W)\n"
         "ranked by bytes saved.")
      .def(
          "to_svg",
          [picture](const Placement& p, std::optional<std::string> window) {
            return render::npu_svg(picture(p, window));
          },
          nb::kw_only(), nb::arg("window") = nb::none(),
          "Local memory as one column per NPU of element blocks (like `tessera draw npu`);\n"
          "window: 'R0:R1,C0:C1' over block rows and NPUs.")
      .def(
          "to_html",
          [picture](const Placement& p, std::optional<std::string> window) {
            return render::npu_html(picture(p, window));
          },
          nb::kw_only(), nb::arg("window") = nb::none(),
          "The picture as a self-contained HTML page.")
      .def(
          "save",
          [picture](const Placement& p, const std::string& path,
                    std::optional<std::string> window) {
            render::write_picture(picture(p, window), path);
          },
          nb::arg("path"), nb::kw_only(), nb::arg("window") = nb::none(),
          "Writes the picture to a .svg or .html file.")
      .def("_repr_svg_", [picture](const Placement& p) { return render::npu_svg(picture(p, {})); })
      .def("_repr_html_",
           [picture](const Placement& p) { return render::npu_html(picture(p, {})); });
}

}  // namespace tessera::python
