// tessera.IndexMap and the vectorised index <-> offset maps shared by every layout class.
#include <fmt/format.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <string>

#include "bindings.h"
#include "index_arrays.h"
#include "python_values.h"
#include "tessera/error.h"
#include "tessera/index_map.h"

namespace nb = nanobind;

namespace tessera::python {

Int64Array as_int64_array(nb::handle object, const char* what) {
  nb::module_ numpy = nb::module_::import_("numpy");
  nb::object array = numpy.attr("asarray")(object);
  const std::string kind = nb::cast<std::string>(array.attr("dtype").attr("kind"));
  const bool empty = nb::cast<std::size_t>(array.attr("size")) == 0;
  if (kind != "i" && kind != "u" && !empty) {
    // dtype.name is a str (wrapping the dtype itself in nb::str cast to std::bad_cast).
    throw Error(ErrorKind::kArgument,
                fmt::format("{} must be integers, not dtype {}", what,
                            nb::cast<std::string>(array.attr("dtype").attr("name"))));
  }
  if (kind == "u" && !empty) {
    // uint64 values above 2^63 - 1 would wrap to negative int64s and be reported negative.
    nb::object largest = nb::module_::import_("builtins").attr("int")(array.attr("max")());
    const auto value = nb::cast<uint64_t>(largest);
    if (value > static_cast<uint64_t>(INT64_MAX)) {
      throw Error(
          ErrorKind::kOutOfRange,
          fmt::format("{} hold {}, above the largest index or offset, 2^63 - 1", what, value));
    }
  }
  return nb::cast<Int64Array>(numpy.attr("ascontiguousarray")(array, "int64"));
}

LeadingShape leading_shape(const Int64Array& indices, std::size_t rank) {
  if (indices.ndim() == 0 || indices.shape(indices.ndim() - 1) != rank) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("indices must be an integer array of shape [..., {}] (one row per "
                            "logical index of rank {})",
                            rank, rank));
  }
  LeadingShape result{{}, 1};
  for (std::size_t i = 0; i + 1 < indices.ndim(); ++i) {
    result.shape.push_back(indices.shape(i));
    result.rows *= indices.shape(i);
  }
  return result;
}

NumpyArray<int64_t> linear_indices(const IndexMap& map, nb::handle indices_object) {
  const Int64Array indices = as_int64_array(indices_object, "indices");
  const std::size_t rank = static_cast<std::size_t>(map.rank());
  const auto [shape, rows] = leading_shape(indices, rank);
  auto out = std::make_unique<int64_t[]>(rows);
  {
    nb::gil_scoped_release release;
    const int64_t* in = indices.data();
    for (std::size_t row = 0; row < rows; ++row) {
      out[row] = map.linear_index(std::span<const int64_t>(in + row * rank, rank));
    }
  }
  return give_to_numpy(std::move(out), shape);
}

NumpyArray<int64_t> logical_indices(const IndexMap& map, nb::handle offsets_object) {
  const Int64Array offsets = as_int64_array(offsets_object, "offsets");
  const std::size_t rank = static_cast<std::size_t>(map.rank());
  std::vector<std::size_t> shape;
  for (std::size_t i = 0; i < offsets.ndim(); ++i) shape.push_back(offsets.shape(i));
  shape.push_back(rank);
  const std::size_t rows = offsets.size();
  auto out = std::make_unique<int64_t[]>(rows * rank);
  {
    nb::gil_scoped_release release;
    const int64_t* in = offsets.data();
    for (std::size_t row = 0; row < rows; ++row) {
      const auto index = map.logical_index(in[row]);
      for (std::size_t k = 0; k < rank; ++k) out[row * rank + k] = index ? (*index)[k] : -1;
    }
  }
  return give_to_numpy(std::move(out), shape);
}

std::optional<nb::tuple> unindex(const IndexMap& map, int64_t offset) {
  const auto index = map.logical_index(offset);
  if (!index) return std::nullopt;
  return as_tuple(*index);
}

void bind_index_map(nb::module_& module) {
  nb::class_<IndexMap>(module, "IndexMap",
                       "The canonical form every layout compiles into: logical index -> element "
                       "offset in a buffer whose other offsets are padding.")
      .def_prop_ro(
          "dims", [](const IndexMap& m) { return as_tuple(m.dims()); }, "Logical dimensions.")
      .def_prop_ro("rank", &IndexMap::rank)
      .def_prop_ro("element_bits", &IndexMap::element_bits, "Bits one element occupies.")
      .def_prop_ro("size_elements", &IndexMap::size_elements,
                   "Buffer extent in elements, padding included.")
      .def_prop_ro("size_bytes", &IndexMap::size_bytes, "ceil(size_elements * element_bits / 8).")
      .def_prop_ro("logical_elements", &IndexMap::logical_elements, "Product of dims.")
      .def_prop_ro("has_digit_form", [](const IndexMap& m) { return m.digit_form() != nullptr; })
      .def_prop_ro(
          "digits",
          [](const IndexMap& m) {
            nb::list digits;
            if (const DigitForm* form = m.digit_form()) {
              for (const Digit& d : form->digits) {
                digits.append(nb::make_tuple(d.dimension, d.weight, d.extent, d.stride));
              }
            }
            return digits;
          },
          "The digit form as (dimension, weight, extent, stride) tuples, most major first "
          "(dimension -1 marks a padding axis); empty when the layout has none.")
      .def(
          "linear_index",
          [](const IndexMap& m, std::vector<int64_t> index) { return m.linear_index(index); },
          nb::arg("index"), "Element offset of a logical index.")
      .def("unindex", &unindex, nb::arg("offset"),
           "Logical index stored at an element offset, or None for padding.")
      .def("linear_indices", &linear_indices, nb::arg("indices"), nb::sig(kLinearIndicesSignature),
           kLinearIndicesDoc)
      .def("logical_indices", &logical_indices, nb::arg("offsets"),
           nb::sig(kLogicalIndicesSignature), kLogicalIndicesDoc);
}

}  // namespace tessera::python
