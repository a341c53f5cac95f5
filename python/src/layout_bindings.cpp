// tessera.Layout: an XLA shape with layout, compiled (tessera/xla/tiled_layout.h).
#include <fmt/format.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <string>

#include "bindings.h"
#include "index_arrays.h"
#include "python_values.h"
#include "tessera/checked_arithmetic.h"
#include "tessera/explain/target_note.h"
#include "tessera/tpu/target_profile.h"
#include "tessera/xla/layout_report.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace nb = nanobind;

namespace tessera::python {
namespace {

using xla::TiledLayout;

TiledLayout parse_layout(std::string_view text) {
  return TiledLayout(xla::parse_shape(text));
}

// Layout.parse's docstring, with the targets of the table (tpu::known_target_names).
const char* parse_doc() {
  static const std::string doc = fmt::format(
      "Parses 'f32[3,5]{{1,0:T(2,2)}}'. A shape written without tiles gets the tiles of\n"
      "target (one of {}), or of TESSERA_TARGET when target is None and\n"
      "it is set; target='none' or neither keeps it as written (like the constructor).\n"
      "A shape written without any layout is a device array: it also gets the order the\n"
      "compiler gives it (xla_era '2026', the default; '2020' keeps the written order).\n"
      "Example: str(Layout.parse('f32[1024,3]', target='tpu')) == "
      "'f32[1024,3]{{0,1:T(4,128)}}'.",
      tpu::known_target_names());
  return doc.c_str();
}

}  // namespace

void bind_layout(nb::module_& module) {
  nb::class_<TiledLayout> layout(
      module, "Layout",
      "An XLA shape with layout, e.g. Layout('bf16[32,256]{1,0:T(8,128)(2,1)}').\n\n"
      "str() is XLA's canonical text; the notation parser also accepts upper-case types\n"
      "('F32[3,5]{1,0:T(2,2)}') and spaces. Invalid text raises a tessera.Error subclass\n"
      "(a ValueError) with the CLI's message.");
  layout
      .def(
          "__init__",
          [](TiledLayout* self, std::string_view text) {
            new (self) TiledLayout(parse_layout(text));
          },
          nb::arg("text"))
      .def_static(
          "parse",
          [](std::string_view text, std::optional<std::string_view> target, int pred_bits,
             std::optional<std::string_view> xla_era) {
            return TiledLayout(tpu::layout_for_target(
                text, tpu::tpu_target_or_environment(target, xla_era, pred_bits, "none")));
          },
          nb::arg("text"), nb::kw_only(), nb::arg("target") = nb::none(), nb::arg("pred_bits") = 0,
          nb::arg("xla_era") = nb::none(), parse_doc())
      .def("__str__", [](const TiledLayout& l) { return xla::print_shape(l.shape()); })
      .def("__repr__",
           [](const TiledLayout& l) { return "Layout('" + xla::print_shape(l.shape()) + "')"; })
      .def("__eq__",
           [](const TiledLayout& a, const TiledLayout& b) { return a.shape() == b.shape(); })
      // Anything else (a layout's text, None) is simply not equal, rather than a TypeError.
      .def(
          "__eq__", [](const TiledLayout&, nb::handle) { return false; }, nb::arg("other").none())
      .def("__hash__",
           [](const TiledLayout& l) {
             return nb::hash(nb::str(xla::print_shape(l.shape()).c_str()));
           })
      .def("__getstate__", [](const TiledLayout& l) { return xla::print_shape(l.shape()); })
      .def("__setstate__",
           [](TiledLayout* self, const std::string& text) {
             new (self) TiledLayout(parse_layout(text));
           })
      .def_prop_ro(
          "canonical", [](const TiledLayout& l) { return xla::print_shape(l.shape()); },
          "XLA's canonical text, byte for byte.")
      .def_prop_ro(
          "layout_text", [](const TiledLayout& l) { return xla::print_layout(l.shape().layout); },
          "Only the layout part: '{1,0:T(8,128)(2,1)}'.")
      .def_prop_ro(
          "dtype",
          [](const TiledLayout& l) {
            return std::string(element_type_name(l.shape().element_type));
          },
          "XLA element type name: 'f32', 'bf16', 's4', 'pred', ...")
      .def_prop_ro(
          "dims", [](const TiledLayout& l) { return as_tuple(l.shape().dimensions); },
          "Logical dimensions.")
      .def_prop_ro("rank", [](const TiledLayout& l) { return l.shape().rank(); })
      .def_prop_ro("minor_to_major",
                   [](const TiledLayout& l) { return as_tuple(l.shape().layout.minor_to_major); })
      .def_prop_ro(
          "tiles",
          [](const TiledLayout& l) {
            nb::list tiles;
            for (const xla::Tile& t : l.shape().layout.tiles) tiles.append(as_tuple(t.dimensions));
            return tiles;
          },
          "Tile levels as tuples, outermost first; -1 stands for '*' (combine dimension).")
      .def_prop_ro(
          "tail_padding_alignment",
          [](const TiledLayout& l) { return l.shape().layout.tail_padding_alignment_in_elements; },
          "L(n): the element count is rounded up to a multiple of n.")
      .def_prop_ro("memory_space",
                   [](const TiledLayout& l) { return l.shape().layout.memory_space; })
      .def_prop_ro("element_bits", &TiledLayout::element_bits,
                   "Bits one element occupies in memory (E(n), else the type's storage).")
      .def_prop_ro(
          "physical_order_dims",
          [](const TiledLayout& l) { return as_tuple(l.physical_order_dims()); },
          "Logical dims permuted into physical order, most major first (before tiling).")
      .def_prop_ro(
          "physical_dims", [](const TiledLayout& l) { return as_tuple(l.physical_dims()); },
          "The tiled shape, most major first: (2,3,2,2) for f32[3,5]{1,0:T(2,2)}.")
      .def_prop_ro("logical_elements", &TiledLayout::logical_elements)
      .def_prop_ro("tiled_elements", &TiledLayout::tiled_elements, "Product of physical_dims.")
      .def_prop_ro("physical_elements", &TiledLayout::physical_elements,
                   "Elements the buffer holds: tiled_elements rounded up to L(n).")
      .def_prop_ro(
          "logical_bytes",
          [](const TiledLayout& l) {
            return bytes_for_bits(l.logical_elements(), bit_width(l.shape().element_type));
          },
          "Bytes of information: logical elements times the type's bit width.")
      .def_prop_ro("size_bytes", &TiledLayout::size_bytes,
                   "Bytes the buffer occupies, padding included.")
      .def_prop_ro("padding_fraction", &TiledLayout::padding_fraction,
                   "1 - logical/physical elements: 0.375 for f32[3,5]{1,0:T(2,2)}.")
      .def_prop_ro("index_map", &TiledLayout::index_map, nb::rv_policy::reference_internal,
                   "The compiled IndexMap (digit form) of this layout.")
      .def(
          "linear_index",
          [](const TiledLayout& l, std::vector<int64_t> index) {
            return l.index_map().linear_index(index);
          },
          nb::arg("index"),
          "Element offset of a logical index: 17 for (2,3) in f32[3,5]{1,0:T(2,2)}.")
      .def(
          "unindex",
          [](const TiledLayout& l, int64_t offset) { return unindex(l.index_map(), offset); },
          nb::arg("offset"), "The logical index at an element offset, or None for padding.")
      .def(
          "linear_indices",
          [](const TiledLayout& l, nb::handle indices) {
            return linear_indices(l.index_map(), indices);
          },
          nb::arg("indices"), nb::sig(kLinearIndicesSignature), kLinearIndicesDoc)
      .def(
          "logical_indices",
          [](const TiledLayout& l, nb::handle offsets) {
            return logical_indices(l.index_map(), offsets);
          },
          nb::arg("offsets"), nb::sig(kLogicalIndicesSignature), kLogicalIndicesDoc)
      .def(
          "info",
          [](const TiledLayout& l) {
            return json_to_python(explain::info_json(
                l, explain::target_note(l.shape(), tpu::parse_tpu_target("tpu"))));
          },
          "The report of `tessera info --json` as a dict: physical dims, the "
          "pad-reshape-transpose\n"
          "steps of every tile level, sizes, unpadded_bytes, padding fraction; for a layout\n"
          "without tiles also 'tpu': what the array takes on a TPU.")
      .def(
          "info_text",
          [](const TiledLayout& l) {
            return explain::info_text(
                l, explain::target_note(l.shape(), tpu::parse_tpu_target("tpu")));
          },
          "The report of `tessera info` as text.");
  add_layout_explain(layout);
  add_layout_render(layout);
}

}  // namespace tessera::python
