// tessera.Relayout: the relayout engine's plan/execute API over NumPy byte buffers.
#include <fmt/format.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "bindings.h"
#include "byte_buffers.h"
#include "tessera/element_type.h"
#include "tessera/error.h"
#include "tessera/index_map.h"
#include "tessera/relayout/file_conversion.h"
#include "tessera/relayout/fill_value.h"
#include "tessera/relayout/planner.h"
#include "tessera/relayout/relayout_plan.h"
#include "tessera/relayout/strided_array.h"

namespace nb = nanobind;

namespace tessera::python {
namespace {

using ReadBuffer = nb::ndarray<const uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using WriteBuffer = nb::ndarray<uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

void execute_pieces(const relayout::RelayoutPlan& plan, ReadBuffer source, WriteBuffer destination,
                    int64_t first, int64_t end) {
  const std::span<const std::byte> from(reinterpret_cast<const std::byte*>(source.data()),
                                        source.shape(0));
  const std::span<std::byte> to(reinterpret_cast<std::byte*>(destination.data()),
                                destination.shape(0));
  nb::gil_scoped_release release;
  plan.execute_pieces(from, to, first, end);
}

// progress(done_bytes, total_bytes) is called with the GIL held between groups of pieces (as a
// file conversion groups them); an
// exception it raises stops the conversion (the destination is then partly written).
void execute(const relayout::RelayoutPlan& plan, ReadBuffer source, WriteBuffer destination,
             nb::object progress) {
  if (progress.is_none()) {
    execute_pieces(plan, source, destination, 0, plan.piece_count());
    return;
  }
  const int64_t total = plan.destination_bytes();
  int64_t done = 0;
  for (const relayout::PieceGroup& group :
       relayout::piece_groups(plan, relayout::kFileGroupBytes)) {
    execute_pieces(plan, source, destination, group.first, group.end);
    done = std::min(done + group.bytes, total);
    progress(group.end == plan.piece_count() ? total : done, total);
  }
}

// Either side may be an IndexMap or a StridedArray (not both: a strided-to-strided copy is
// NumPy's own np.copyto).
template <class Source, class Destination>
void add_constructor(nb::class_<relayout::RelayoutPlan>& plan_class) {
  plan_class.def(
      "__init__",
      [](relayout::RelayoutPlan* self, const Source& source, const Destination& destination,
         int threads, uint64_t fill_bits, bool keep_padding, bool sign_extend,
         std::string_view planner, std::string variant) {
        const relayout::PlannerMode mode = relayout::parse_planner_mode(planner);
        nb::gil_scoped_release release;  // `measure` may time candidates for seconds
        new (self) relayout::RelayoutPlan(
            relayout::plan(source, destination,
                           {.threads = threads,
                            .fill_bits = fill_bits,
                            .keep_padding = keep_padding,
                            .sign_extend = sign_extend,
                            .planner = mode,
                            .variant = relayout::ForcedVariant::parse(variant)}));
      },
      nb::arg("source"), nb::arg("destination"), nb::kw_only(), nb::arg("threads") = 0,
      nb::arg("fill_bits") = 0, nb::arg("keep_padding") = false, nb::arg("sign_extend") = false,
      nb::arg("planner") = "estimate", nb::arg("variant") = "",
      "source, destination: IndexMaps of one logical array, or one of them a StridedArray (an\n"
      "array in memory with byte strides, read or written in place; its buffer starts at its\n"
      "footprint's lowest byte). threads: 0 for all cores. fill_bits: the bit pattern written\n"
      "into destination padding (its low element_bits bits). keep_padding: leave destination\n"
      "padding untouched. sign_extend: when unpacking sub-byte elements into wider ones,\n"
      "sign-extend. planner: 'estimate' (wisdom from tessera.tune(), else a model), 'measure' or\n"
      "'patient' (time the candidates where there is no wisdom). variant: force a kernel variant\n"
      "by name, e.g. 'r64-l2' (tessera.variant_names()); the bytes written are the same.");
}

void bind_strided_array(nb::module_& module) {
  nb::class_<relayout::StridedArray>(
      module, "StridedArray",
      "An array in memory as NumPy describes it: dims, element bits (whole bytes) and one byte\n"
      "stride per dimension (negative for reversed views, zero for broadcast ones). A side of a\n"
      "Relayout that is read or written in place.")
      .def(
          "__init__",
          [](relayout::StridedArray* self, std::vector<int64_t> dims, int element_bits,
             std::vector<int64_t> byte_strides) {
            new (self)
                relayout::StridedArray{std::move(dims), element_bits, std::move(byte_strides)};
          },
          nb::arg("dims"), nb::arg("element_bits"), nb::arg("byte_strides"))
      .def_ro("dims", &relayout::StridedArray::dims)
      .def_ro("element_bits", &relayout::StridedArray::element_bits)
      .def_ro("byte_strides", &relayout::StridedArray::byte_strides)
      .def(
          "footprint",
          [](const relayout::StridedArray& array, bool destination) {
            const relayout::StridedFootprint f = relayout::check_strided_array(
                array,
                destination ? relayout::StridedUse::kDestination : relayout::StridedUse::kSource);
            return nb::make_tuple(f.first_element, f.size_bytes);
          },
          nb::arg("destination"),
          "(first_element, size_bytes): the bytes from the lowest byte the array touches to its\n"
          "element 0, and to one past its highest. Raises ArgumentError when the array cannot be\n"
          "a source (strides that are not whole elements) or, with destination=True, a\n"
          "destination (a broadcast view, overlapping elements).");
}

}  // namespace

void bind_relayout(nb::module_& module) {
  bind_strided_array(module);
  nb::class_<relayout::RelayoutPlan> plan_class(
      module, "Relayout",
      "A conversion between two layouts (IndexMaps) of one logical array, planned once and\n"
      "executed on byte buffers many times (the C++ relayout engine: common refinement, SIMD\n"
      "kernels, threads). Most code calls tessera.to_physical / from_physical / convert instead.");
  add_constructor<IndexMap, IndexMap>(plan_class);
  add_constructor<relayout::StridedArray, IndexMap>(plan_class);
  add_constructor<IndexMap, relayout::StridedArray>(plan_class);
  plan_class
      .def("execute", &execute, nb::arg("source"), nb::arg("destination"),
           nb::arg("progress") = nb::none(),
           "Copies every element of `source` (1-D uint8, at least source_bytes long) into\n"
           "`destination` (1-D writable uint8, at least destination_bytes). The GIL is released.\n"
           "progress: optional callable(done_bytes, total_bytes), called every ~32 MiB and at\n"
           "the end; an exception it raises stops the conversion.\n"
           "Raises BufferSizeError for a buffer that is too small.")
      .def_prop_ro("piece_count", &relayout::RelayoutPlan::piece_count,
                   "The plan's work in pieces of ~1 MiB of destination (streaming, progress).")
      .def("piece_bytes", &relayout::RelayoutPlan::piece_bytes, nb::arg("piece"),
           "Destination bytes piece `piece` writes.")
      .def("execute_pieces", &execute_pieces, nb::arg("source"), nb::arg("destination"),
           nb::arg("first"), nb::arg("end"),
           "Runs pieces [first, end); consecutive ranges covering [0, piece_count) in order\n"
           "are execute(). The GIL is released.")
      .def("destination_settled_bytes", &relayout::RelayoutPlan::destination_settled_bytes,
           nb::arg("piece"),
           "Once pieces [0, piece) have run, the destination bytes before this offset are\n"
           "final: no later piece writes there (for writing output out as it is done).")
      .def_prop_ro("source_bytes", &relayout::RelayoutPlan::source_bytes)
      .def_prop_ro("destination_bytes", &relayout::RelayoutPlan::destination_bytes)
      .def_prop_ro("threads", &relayout::RelayoutPlan::threads)
      .def("describe", &relayout::RelayoutPlan::describe,
           "The strided pieces of the plan and the kernel chosen for each, one per line, with\n"
           "its variant and where that came from ('model', 'measured 2026-11-27 on this host',\n"
           "'forced'); consecutive pieces that read the same are one line ending '(N pieces)'.");
  module.def("release_buffers", &release_buffers,
             "Frees the output buffers kept for reuse by to_physical/from_physical (at most 4\n"
             "buffers and 512 MiB are kept); returns the number of bytes given back.");
  module.def(
      "parse_fill_value",
      [](std::string_view text, std::string_view element_type) {
        const std::optional<ElementType> type = parse_element_type(element_type);
        if (!type)
          throw Error(ErrorKind::kArgument, fmt::format("unknown element type '{}'", element_type));
        return relayout::parse_fill_value(text, *type);
      },
      nb::arg("text"), nb::arg("element_type"),
      "The bit pattern of a fill value given as text, exactly as the CLI's --fill reads it\n"
      "(the Python front end turns numbers, bools and NaN into this text).");
  module.def("empty_bytes", &empty_bytes, nb::arg("size"),
             "An uninitialised 1-D uint8 array, huge-page backed when large (output buffers).");
}

}  // namespace tessera::python
