// Layout.explain(), tessera.explain() and tessera.tpu_layout(): the explain library
// (tessera/explain/*.h), the same report as `tessera explain --json`.
#include <fmt/format.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <string>

#include "bindings.h"
#include "python_values.h"
#include "tessera/explain/layout_explanation.h"
#include "tessera/inputs/input_explanation.h"
#include "tessera/tpu/target_profile.h"
#include "tessera/xla/notation.h"

namespace nb = nanobind;

namespace tessera::python {
namespace {

// The same target choice as `tessera explain`: the given one, else TESSERA_TARGET, else the TPU
// for a shape written without tiles. pred_bits 32, 8 or 1 (0: the generation's); the older
// pred_one_bit=True means 1.
// shards: the per-device shard is explained (inputs::sharded_shape_text), as with --shards.

nb::dict explain_text(std::string_view text, std::optional<std::string_view> target,
                      bool pred_one_bit, int pred_bits, std::size_t max_suggestions,
                      const std::vector<int64_t>& shards, std::optional<std::string_view> xla_era) {
  explain::ExplainOptions options;
  options.target =
      tpu::tpu_target_or_environment(target, xla_era, pred_one_bit ? 1 : pred_bits,
                                     tpu::explain_default_target(xla::parse_shape(text)));
  options.target_is_default = !target && !tpu::environment_names_target();
  options.max_suggestions = max_suggestions;
  if (shards.empty()) {
    return json_to_python(explain::explanation_json(explain::explain_layout(text, options)));
  }
  const std::string shard = inputs::sharded_shape_text(text, shards, options.split);
  const auto explanation = explain::explain_layout(shard, options);
  auto json = explain::explanation_json(explanation);
  json["shards"] = shards;
  json["shard_dims"] = explanation.layout.shape().dimensions;
  return json_to_python(json);
}

// {} is the list of targets (tpu::known_target_names).
constexpr const char* kExplainDocFormat =
    "The report of `tessera explain --json` (of this layout, or of a shape's text such as\n"
    "'s32[2048,1,128,128,4]') as a dict: layout, logical_bytes, size_bytes,\n"
    "padding_fraction, padding_sources (dimension by dimension, tile level by tile level), steps,\n"
    "suggestions (other layouts ranked by bytes saved, best first; equivalent ones grouped under\n"
    "`alternatives`) and fixes (JAX code to paste: reshape, transpose, packbits, each sized as\n"
    "the compiler lays out the array it makes; reshape and pad in era 2020). target: one of\n"
    "{}; by default TESSERA_TARGET, else 'tpu' for a shape written\n"
    "without tiles. pred_bits: 32, 8 or 1 (0: the generation's); pred_one_bit is pred_bits=1.\n"
    "xla_era: '2026' (default: today's compiler, which also orders a device array's dims) or\n"
    "'2020' (the public 2019-2021 reports); None means TESSERA_XLA_ERA when set.";

const char* explain_doc() {
  static const std::string doc = fmt::format(kExplainDocFormat, tpu::known_target_names());
  return doc.c_str();
}

}  // namespace

void add_layout_explain(nb::class_<xla::TiledLayout>& layout) {
  layout.def(
      "explain",
      [](const xla::TiledLayout& l, std::optional<std::string_view> target, bool pred_one_bit,
         int pred_bits, std::size_t max_suggestions, std::optional<std::string_view> xla_era) {
        return explain_text(xla::print_shape(l.shape()), target, pred_one_bit, pred_bits,
                            max_suggestions, {}, xla_era);
      },
      nb::kw_only(), nb::arg("target") = nb::none(), nb::arg("pred_one_bit") = false,
      nb::arg("pred_bits") = 0, nb::arg("max_suggestions") = 10, nb::arg("xla_era") = nb::none(),
      explain_doc());
}

void bind_explain(nb::module_& module) {
  // The target names of the generation table, for the docstrings of the Python layer.
  module.attr("_target_names") = tpu::known_target_names();
  module.def(
      "explain", &explain_text, nb::arg("shape"), nb::kw_only(), nb::arg("target") = nb::none(),
      nb::arg("pred_one_bit") = false, nb::arg("pred_bits") = 0, nb::arg("max_suggestions") = 10,
      nb::arg("shards") = std::vector<int64_t>{}, nb::arg("xla_era") = nb::none(), explain_doc());
  module.def(
      "_with_target",
      [](std::string_view shape_text, std::optional<std::string_view> target, int pred_bits,
         std::optional<std::string_view> xla_era) {
        return xla::TiledLayout(tpu::layout_for_target(
            shape_text, tpu::tpu_target_or_environment(target, xla_era, pred_bits, "none")));
      },
      nb::arg("shape"), nb::arg("target") = nb::none(), nb::arg("pred_bits") = 0,
      nb::arg("xla_era") = nb::none(),
      "The layout of a shape's text with the target's tiles when a target is given or "
      "TESSERA_TARGET names one (and the shape names no tiles; a shape without a layout gets the "
      "compiler's dimension order too); as written otherwise.");
  module.def(
      "_tpu_layout",
      [](std::string_view shape_text, std::optional<std::string_view> target, int pred_bits,
         std::optional<std::string_view> xla_era) {
        return xla::TiledLayout(tpu::layout_for_target(
            shape_text, tpu::tpu_target_or_environment(target, xla_era, pred_bits, "tpu")));
      },
      nb::arg("shape"), nb::arg("target") = nb::none(), nb::arg("pred_bits") = 0,
      nb::arg("xla_era") = nb::none(),
      "The layout a TPU gives a shape written without tiles: target (default TESSERA_TARGET, "
      "else tpu) and xla_era as for explain.");
}

}  // namespace tessera::python
