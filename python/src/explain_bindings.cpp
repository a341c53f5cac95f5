// Layout.explain(), tessera.explain() and tessera.tpu_layout(): the explain library
// (tessera/explain/*.h), the same report as `tessera explain --json`.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>

#include <string>

#include "bindings.h"
#include "python_values.h"
#include "tessera/explain/layout_explanation.h"
#include "tessera/explain/target_profile.h"
#include "tessera/xla/notation.h"

namespace nb = nanobind;

namespace tessera::python {
namespace {

explain::ExplainOptions options(std::string_view target, bool pred_one_bit,
                                std::size_t max_suggestions) {
  return {.target = explain::parse_target(target),
          .pred = pred_one_bit ? explain::PredStorage::kOneBit : explain::PredStorage::kFourBytes,
          .max_suggestions = max_suggestions};
}

nb::dict explain_text(std::string_view text, std::string_view target, bool pred_one_bit,
                      std::size_t max_suggestions) {
  const explain::LayoutExplanation explanation =
      explain::explain_layout(text, options(target, pred_one_bit, max_suggestions));
  return json_to_python(explain::explanation_json(explanation));
}

constexpr const char* kExplainDoc =
    "The report of `tessera explain --json` (of this layout, or of a shape's text such as\n"
    "'s32[2048,1,128,128,4]') as a dict: layout, logical_bytes, size_bytes,\n"
    "padding_fraction, padding_sources (dimension by dimension, tile level by tile level), steps,\n"
    "and suggestions (other layouts ranked by bytes saved, best first). target='tpu' chooses the\n"
    "TPU's tiles for a shape written without tiles; pred_one_bit uses the spec's 1-bit pred.";

}  // namespace

void add_layout_explain(nb::class_<xla::TiledLayout>& layout) {
  layout.def(
      "explain",
      [](const xla::TiledLayout& l, std::string_view target, bool pred_one_bit,
         std::size_t max_suggestions) {
        return explain_text(xla::print_shape(l.shape()), target, pred_one_bit, max_suggestions);
      },
      nb::kw_only(), nb::arg("target") = "none", nb::arg("pred_one_bit") = false,
      nb::arg("max_suggestions") = 10, kExplainDoc);
}

void bind_explain(nb::module_& module) {
  module.def("explain", &explain_text, nb::arg("shape"), nb::kw_only(), nb::arg("target") = "none",
             nb::arg("pred_one_bit") = false, nb::arg("max_suggestions") = 10, kExplainDoc);
  module.def(
      "_tpu_layout",
      [](std::string_view shape_text, bool pred_one_bit) {
        const explain::PredStorage pred =
            pred_one_bit ? explain::PredStorage::kOneBit : explain::PredStorage::kFourBytes;
        return xla::TiledLayout(
            explain::apply_target(xla::parse_shape(shape_text), explain::Target::kTpu, pred));
      },
      nb::arg("shape"), nb::arg("pred_one_bit") = false,
      "The TPU target profile's layout for a shape written without tiles.");
}

}  // namespace tessera::python
