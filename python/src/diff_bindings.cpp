// tessera.diff() and layout_mismatches(): thin bindings over tessera/explain/layout_diff.h and
// tessera/inputs/layout_mismatch.h, the same reports as `tessera diff --json` and
// `tessera mismatch --json`.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <string>

#include "bindings.h"
#include "python_values.h"
#include "tessera/explain/layout_diff.h"
#include "tessera/inputs/layout_mismatch.h"
#include "tessera/render/diff_picture.h"

namespace nb = nanobind;

namespace tessera::python {
namespace {

explain::LayoutDiff diff(std::string_view a, std::string_view b,
                         std::optional<std::string_view> target, int pred_bits,
                         std::optional<std::string_view> xla_era, std::string shape, bool measure,
                         int threads) {
  explain::DiffOptions options;
  // As the CLI: the given target, else TESSERA_TARGET, else the layouts as written.
  options.target = tpu::tpu_target_or_environment(target, xla_era, pred_bits, "none");
  options.shape = std::move(shape);
  options.measure = measure;
  options.threads = threads;
  nb::gil_scoped_release release;
  return explain::diff_layouts(a, b, options);
}

}  // namespace

void bind_diff(nb::module_& module) {
  module.def(
      "_diff",
      [](std::string_view a, std::string_view b, std::optional<std::string_view> target,
         int pred_bits, std::optional<std::string_view> xla_era, std::string shape, bool measure,
         int threads, std::optional<std::string> picture, std::string_view window,
         int64_t max_cells) {
        const explain::LayoutDiff d =
            diff(a, b, target, pred_bits, xla_era, std::move(shape), measure, threads);
        if (picture) {
          render::DiffPictureOptions options;
          if (!window.empty()) options.window = render::parse_window(window);
          options.max_cells = max_cells;
          options.frame_a = explain::tile_block(d.a);
          options.frame_b = explain::tile_block(d.b);
          render::write_diff_picture(
              render::build_diff_picture(*d.a.operand.map, *d.b.operand.map, d.a.layout, d.b.layout,
                                         d.moved.moved, options),
              *picture);
        }
        return json_to_python(explain::diff_json(d));
      },
      nb::arg("a"), nb::arg("b"), nb::arg("target").none(), nb::arg("pred_bits"),
      nb::arg("xla_era").none(), nb::arg("shape"), nb::arg("measure"), nb::arg("threads"),
      nb::arg("picture").none(), nb::arg("window"), nb::arg("max_cells"));
  module.def(
      "layout_mismatches",
      [](std::string_view text) {
        return json_to_python(inputs::mismatches_json(inputs::find_layout_mismatches(text)));
      },
      nb::arg("text"),
      "The report of `tessera mismatch --json` for text holding layout-mismatch errors (XLA,\n"
      "Mosaic, Pallas): {'mismatches': [{message, source, operand, shape, expected, actual,\n"
      "differences, moved_elements, relayout, causes, fixes, ...}]}.");
}

}  // namespace tessera::python
