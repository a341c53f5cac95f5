// The pieces of the `tessera._tessera` extension, one concept per file; module.cpp calls them in
// order. Every function here is a thin layer over the public API in include/tessera/.
#pragma once

#include <nanobind/nanobind.h>

#include "tessera/xla/tiled_layout.h"

namespace tessera::python {

// tessera.Error (a ValueError) and one subclass per tessera::ErrorKind; translates tessera::Error.
void bind_errors(nanobind::module_& module);
// tessera.IndexMap: the canonical form, with vectorised index <-> offset maps.
void bind_index_map(nanobind::module_& module);
// tessera.Layout: an XLA shape with layout (TiledLayout).
void bind_layout(nanobind::module_& module);
// Layout.explain() and Layout.to_svg()/to_html()/save()/_repr_svg_/_repr_html_.
void add_layout_explain(nanobind::class_<xla::TiledLayout>& layout);
void add_layout_render(nanobind::class_<xla::TiledLayout>& layout);
// tessera.explain() and the TPU target profile (tessera.tpu_layout).
void bind_explain(nanobind::module_& module);
// tessera.explain_input, the JAX layout helpers (input_bindings.cpp).
void bind_inputs(nanobind::module_& module);
// tessera.diff, the copies of an HLO module and layout-mismatch errors (diff_bindings.cpp).
void bind_diff(nanobind::module_& module);
// tessera.Relayout (the relayout engine's plans) and output buffers.
void bind_relayout(nanobind::module_& module);
// tessera.convert_file, a file into another file (file_conversion_bindings.cpp).
void bind_file_conversion(nanobind::module_& module);
// tessera.tune() and the wisdom functions (planner_bindings.cpp).
void bind_planner(nanobind::module_& module);
// tessera.npu: Device, Tensor, Matrix, best_w.
void bind_npu(nanobind::module_& module);
// Adds _check_plan and _draw_plan to the tessera.npu submodule (npu_plan_bindings.cpp).
void bind_npu_plan(nanobind::module_& npu_module);

}  // namespace tessera::python
