// tessera.explain_input(), Layout.from_jax()/to_jax() and explain(shards=): thin bindings over
// tessera/inputs (the same readers and JAX layout parser as `tessera explain PATH|--jax-layout`).
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "bindings.h"
#include "python_values.h"
#include "tessera/inputs/hlo_copies.h"
#include "tessera/inputs/input_explanation.h"
#include "tessera/inputs/layout_mismatch.h"
#include "tessera/xla/jax_layout.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace nb = nanobind;

namespace tessera::python {

void bind_inputs(nb::module_& module) {
  module.def(
      "explain_input",
      [](std::string_view text, std::string_view target, std::vector<int64_t> shards,
         std::optional<std::string_view> xla_era, bool copies) {
        if (copies) return json_to_python(inputs::copies_json(inputs::find_copies(text)));
        inputs::InputOptions options;
        options.target = tpu::parse_tpu_target(target, tpu::xla_era_or_environment(xla_era));
        options.shards = std::move(shards);
        return json_to_python(inputs::input_report_json(text, options));
      },
      nb::arg("text"), nb::kw_only(), nb::arg("target") = "tpu",
      nb::arg("shards") = std::vector<int64_t>{}, nb::arg("xla_era") = nb::none(),
      nb::arg("copies") = false,
      "The report of `tessera explain PATH --json` for text: an XLA OOM report (also as a Python "
      "repr on any line of a traceback, and today's one-line message), an HLO module or any log "
      "with shapes, with the layout-mismatch errors in it decoded ('layout_mismatches'). Shapes "
      "without tiles get the target's (TPU by default). Totals count each buffer once "
      "('counted', 'same_buffer'). shards applies to shapes written by hand; a report's or "
      "module's shapes are already per device, and shards= is refused for them. xla_era: '2026' "
      "(default) or '2020', as for explain. copies=True: the report of `--copies` for an HLO "
      "module: {'copies': [{name, from, to, bytes, kind, fix, ...}]}, every instruction that "
      "changes a layout, largest first.");
  module.def(
      "_jax_layout_shape",
      [](std::string_view shape, std::string_view repr) {
        return xla::shape_with_jax_layout(shape, repr);
      },
      nb::arg("shape"), nb::arg("repr"));
  module.def(
      "_jax_layout_fields",
      [](const xla::TiledLayout& layout) {
        const xla::Layout& l = layout.shape().layout;
        std::vector<std::vector<int64_t>> tiles;
        for (const auto& t : l.tiles) tiles.push_back(t.dimensions);
        return std::make_tuple(
            std::vector<int64_t>(l.minor_to_major.rbegin(), l.minor_to_major.rend()), tiles,
            l.element_size_in_bits, xla::jax_layout_repr(l));
      },
      nb::arg("layout"));
}

}  // namespace tessera::python
