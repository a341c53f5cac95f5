// tessera.npu: devices, tensors in local memory, the matrix layout and its best W
// (tessera/npu/*.h). Text arguments go through the same parsers as `tessera npu ...`, so errors
// read the same.
#include <fmt/format.h>
#include <nanobind/stl/array.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <variant>

#include "bindings.h"
#include "index_arrays.h"
#include "npu_pictures.h"
#include "python_values.h"
#include "tessera/error.h"
#include "tessera/npu/device.h"
#include "tessera/npu/footprint.h"
#include "tessera/npu/local_tensor.h"
#include "tessera/npu/matrix_layout.h"
#include "tessera/npu/npu_arguments.h"
#include "tessera/npu/npu_report.h"

namespace nb = nanobind;

namespace tessera::python {
namespace {

using npu::Device;
using npu::LocalTensor;
using npu::MatrixLayout;

// A matrix layout that remembers whether its W was searched (the report then gives best_w).
struct Matrix : MatrixLayout {
  Matrix(MatrixLayout layout, bool searched_width)
      : MatrixLayout(std::move(layout)), searched(searched_width) {}
  bool searched;
};

// A device given as a Device or as text ("bm1684", "npus=4,lmem=1024,align=128").
Device as_device(nb::handle device) {
  if (nb::isinstance<Device>(device)) return nb::cast<Device>(device);
  return npu::parse_device(nb::cast<std::string>(device));
}

npu::LocalLayout as_local_layout(nb::handle layout) {
  if (nb::isinstance<nb::str>(layout)) return npu::parse_layout(nb::cast<std::string>(layout));
  const auto strides = nb::cast<std::vector<int64_t>>(layout);
  return npu::parse_layout(fmt::format("strides={}", fmt::join(strides, ",")));
}

// The removed option is refused with the CLI's words; the rule is then the device's own.
std::optional<npu::NStrideRule> n_stride_rule(bool gdma_row_stride) {
  npu::refuse_gdma_row_stride(gdma_row_stride);
  return std::nullopt;
}

// Places of many elements: int array [..., rank] -> int64 [..., 2] of (NPU, byte offset).
template <typename PlaceOf>
NumpyArray<int64_t> places(nb::handle indices_object, std::size_t rank, PlaceOf place_of) {
  const Int64Array indices = as_int64_array(indices_object, "indices");
  auto [shape, rows] = leading_shape(indices, rank);
  shape.push_back(2);
  auto out = std::make_unique<int64_t[]>(rows * 2);
  {
    nb::gil_scoped_release release;
    for (std::size_t row = 0; row < rows; ++row) {
      const npu::ElementPlace place =
          place_of(std::span<const int64_t>(indices.data() + row * rank, rank));
      out[2 * row] = place.npu;
      out[2 * row + 1] = place.byte_offset;
    }
  }
  return give_to_numpy(std::move(out), shape);
}

void bind_device(nb::module_& m) {
  nb::class_<Device>(m, "Device",
                     "A many-NPU chip's local memory: X NPUs of S bytes each. Device('bm1684'),\n"
                     "Device('bm1684x'), Device('bm1688') or Device('npus=4,lmem=1024,align=128').")
      .def(
          "__init__",
          [](Device* self, std::string_view text) { new (self) Device(npu::parse_device(text)); },
          nb::arg("spec"))
      .def_static(
          "custom",
          [](int64_t npus, int64_t local_memory_bytes, int64_t alignment_bytes, int64_t banks) {
            return npu::make_device(npus, local_memory_bytes, alignment_bytes, banks);
          },
          nb::arg("npus"), nb::arg("local_memory_bytes"), nb::arg("alignment_bytes"),
          nb::arg("banks") = 1, "A device that is not a preset.")
      .def_ro("name", &Device::name)
      .def_ro("npus", &Device::npus, "X: the number of NPUs.")
      .def_ro("local_memory_bytes", &Device::local_memory_bytes, "S: local memory per NPU.")
      .def_ro("alignment_bytes", &Device::alignment_bytes, "EU alignment of the aligned layout.")
      .def_ro("banks", &Device::banks)
      .def_prop_ro("bank_bytes", &Device::bank_bytes)
      .def_prop_ro("total_bytes", &Device::total_bytes, "X*S: the local memory address space.")
      .def(
          "locate",
          [](const Device& d, int64_t address) {
            const npu::LocalAddress a = npu::locate(d, address);
            return nb::make_tuple(a.npu, a.offset, a.bank);
          },
          nb::arg("address"),
          "(NPU, offset, bank) of a local memory address: (1, 448, 0) for 1472 on the spec's\n"
          "X=4, S=1024 device. Raises OutOfRangeError outside [0, X*S).")
      .def("info", [](const Device& d) { return json_to_python(npu::device_json(d)); })
      .def("__eq__", [](const Device& a, const Device& b) { return a == b; })
      .def(
          "__eq__", [](const Device&, nb::handle) { return false; }, nb::arg("other").none())
      .def("__hash__",
           [](const Device& d) { return nb::hash(nb::str(npu::format_device(d).c_str())); })
      .def("__str__", &npu::format_device)
      .def("__repr__",
           [](const Device& d) { return fmt::format("Device('{}')", npu::format_device(d)); });

  m.def(
      "presets",
      [] {
        std::vector<Device> all(npu::device_presets().begin(), npu::device_presets().end());
        return all;
      },
      "The named devices: one per chip of the Sophgo family (bm1684, bm1684x, ...).");
}

void bind_tensor(nb::module_& m) {
  nb::class_<LocalTensor> tensor(
      m, "Tensor",
      "A 4-D tensor (N, C, H, W) in local memory: Tensor('bm1684', (4, 256, 56, 56), 'f32',\n"
      "address=0, layout='aligned'). layout: 'aligned', 'gdma' (as the chip's own default copy\n"
      "lays it), 'compact', 'strides=NS,CS,HS,WS' or a 4-tuple of strides (stored elements);\n"
      "mode: 'none', '4N', '2N', '2IC'. gdma_row_stride is refused: use layout='gdma'.");
  tensor
      .def(
          "__init__",
          [](LocalTensor* self, nb::handle device, std::array<int64_t, 4> shape,
             std::string_view dtype, int64_t address, nb::handle layout, std::string_view mode,
             bool gdma_row_stride) {
            npu::LocalLayout local = as_local_layout(layout);
            npu::refuse_gdma_row_stride(gdma_row_stride);
            new (self) LocalTensor(as_device(device), shape, npu::parse_npu_element_type(dtype),
                                   address, local, npu::parse_storage_mode(mode));
          },
          nb::arg("device"), nb::arg("shape"), nb::arg("dtype"), nb::arg("address") = 0,
          nb::arg("layout") = "aligned", nb::arg("mode") = "none",
          nb::arg("gdma_row_stride") = false)
      .def_prop_ro("device", &LocalTensor::device)
      .def_prop_ro(
          "dims", [](const LocalTensor& t) { return as_tuple(t.shape()); }, "(N, C, H, W).")
      .def_prop_ro(
          "dtype",
          [](const LocalTensor& t) { return std::string(element_type_name(t.element_type())); })
      .def_prop_ro("address", &LocalTensor::address)
      .def_prop_ro("start_npu", [](const LocalTensor& t) { return t.start().npu; })
      .def_prop_ro("start_offset", [](const LocalTensor& t) { return t.start().offset; })
      .def_prop_ro("layout", [](const LocalTensor& t) { return npu::format_layout(t.layout()); })
      .def_prop_ro("mode",
                   [](const LocalTensor& t) {
                     return std::string(npu::storage_mode_name(t.storage_mode()));
                   })
      .def_prop_ro("element_bytes", &LocalTensor::element_bytes)
      .def_prop_ro("stored_element_bytes", &LocalTensor::stored_element_bytes)
      .def_prop_ro("stored_shape", [](const LocalTensor& t) { return as_tuple(t.stored_shape()); })
      .def_prop_ro(
          "strides", [](const LocalTensor& t) { return as_tuple(t.strides()); },
          "(N, C, H, W) strides in stored elements.")
      .def_prop_ro("channels_per_npu", &LocalTensor::channels_per_npu)
      .def_prop_ro("bytes_reserved_per_npu", &LocalTensor::bytes_reserved_per_npu)
      .def_prop_ro("fits", &LocalTensor::fits)
      .def_prop_ro("overrun_bytes", &LocalTensor::overrun_bytes)
      .def_prop_ro(
          "bytes_per_npu",
          [](const LocalTensor& t) {
            std::vector<int64_t> spans;
            for (const npu::NpuFootprint& f : npu::footprint(t).npus) spans.push_back(f.span_bytes);
            return spans;
          },
          "Bytes the tensor spans in each NPU (X integers), gaps included.")
      .def_prop_ro("npus_touched",
                   [](const LocalTensor& t) { return npu::footprint(t).npus_touched; })
      .def_prop_ro("wasted_bytes",
                   [](const LocalTensor& t) { return npu::footprint(t).wasted_bytes; })
      .def_prop_ro("index_map", &LocalTensor::index_map, nb::rv_policy::reference_internal,
                   "(n,c,h,w) -> element offset in the X*S-byte local memory image. Raises\n"
                   "DoesNotFitError when the tensor runs past local memory.")
      .def_prop_ro(
          "size_bytes", [](const LocalTensor& t) { return t.index_map().size_bytes(); },
          "Bytes of the local memory image to_physical produces (X*S).")
      .def(
          "place",
          [](const LocalTensor& t, std::vector<int64_t> index) {
            const npu::ElementPlace p = t.place(index);
            return nb::make_tuple(p.npu, p.byte_offset);
          },
          nb::arg("index"), "(NPU, byte offset inside that NPU) of element (n, c, h, w).")
      .def(
          "places",
          [](const LocalTensor& t, nb::handle indices) {
            return places(indices, 4, [&](std::span<const int64_t> i) { return t.place(i); });
          },
          nb::arg("indices"),
          nb::sig("def places(self, indices: numpy.typing.ArrayLike) -> "
                  "numpy.typing.NDArray[numpy.int64]"),
          "Vectorised place: int array [..., 4] -> int64 [..., 2] of (NPU, byte offset).")
      .def(
          "info",
          [](const LocalTensor& t) { return json_to_python(npu::local_tensor_report_json(t)); },
          "The report of `tessera npu info --json` as a dict.")
      .def("info_text", [](const LocalTensor& t) { return npu::local_tensor_report_text(t); })
      .def("__repr__", [](const LocalTensor& t) {
        return fmt::format("Tensor('{}', ({}), '{}', address={}, layout='{}', mode='{}')",
                           npu::format_device(t.device()), fmt::join(t.shape(), ", "),
                           element_type_name(t.element_type()), t.address(),
                           npu::format_layout(t.layout()),
                           npu::storage_mode_name(t.storage_mode()));
      });
  add_npu_explain_and_pictures<LocalTensor, LocalTensor>(tensor);
}

void bind_matrix(nb::module_& m) {
  nb::class_<Matrix> matrix(
      m, "Matrix",
      "An N x M matrix in local memory with W columns per channel (the aligned tensor\n"
      "(N, ceil(M/W), 1, W)). w=None picks the best W (least local memory per NPU).");
  matrix
      .def(
          "__init__",
          [](Matrix* self, nb::handle device, int64_t rows, int64_t columns, std::string_view dtype,
             int64_t address, std::optional<int64_t> w, bool gdma_row_stride) {
            const Device d = as_device(device);
            const ElementType type = npu::parse_npu_element_type(dtype);
            const auto rule = n_stride_rule(gdma_row_stride);
            const int64_t width =
                w ? *w : npu::best_matrix_width(d, rows, columns, type, address, rule);
            new (self) Matrix(MatrixLayout(d, rows, columns, type, address, width, rule), !w);
          },
          nb::arg("device"), nb::arg("rows"), nb::arg("columns"), nb::arg("dtype"),
          nb::arg("address") = 0, nb::arg("w") = nb::none(), nb::arg("gdma_row_stride") = false)
      .def_prop_ro("rows", [](const Matrix& mx) { return mx.rows(); })
      .def_prop_ro("columns", [](const Matrix& mx) { return mx.columns(); })
      .def_prop_ro(
          "w", [](const Matrix& mx) { return mx.width(); }, "Columns per channel.")
      .def_prop_ro("channels", [](const Matrix& mx) { return mx.channels(); })
      .def_prop_ro("last_channel_columns",
                   [](const Matrix& mx) { return mx.last_channel_columns(); })
      .def_prop_ro("row_bytes_per_npu", [](const Matrix& mx) { return mx.row_bytes_per_npu(); })
      .def_prop_ro(
          "tensor", [](const Matrix& mx) -> const LocalTensor& { return mx.tensor(); },
          nb::rv_policy::reference_internal, "The aligned tensor (N, C, 1, W) holding the matrix.")
      .def(
          "place",
          [](const Matrix& mx, int64_t row, int64_t column) {
            const npu::ElementPlace p = mx.place(row, column);
            return nb::make_tuple(p.npu, p.byte_offset);
          },
          nb::arg("row"), nb::arg("column"), "(NPU, byte offset) of element (i, j).")
      .def(
          "places",
          [](const Matrix& mx, nb::handle indices) {
            return places(indices, 2,
                          [&](std::span<const int64_t> i) { return mx.place(i[0], i[1]); });
          },
          nb::arg("indices"),
          nb::sig("def places(self, indices: numpy.typing.ArrayLike) -> "
                  "numpy.typing.NDArray[numpy.int64]"),
          "Vectorised place: int array [..., 2] of (i, j) -> int64 [..., 2] of (NPU, byte offset).")
      .def(
          "info",
          [](const Matrix& mx) { return json_to_python(npu::matrix_report_json(mx, mx.searched)); },
          "The report of `tessera npu matrix --json` as a dict.");
  add_npu_explain_and_pictures<Matrix, MatrixLayout>(matrix);

  m.def(
      "best_w",
      [](nb::handle device, int64_t rows, int64_t columns, std::string_view dtype, int64_t address,
         bool gdma_row_stride) {
        return npu::best_matrix_width(as_device(device), rows, columns,
                                      npu::parse_npu_element_type(dtype), address,
                                      n_stride_rule(gdma_row_stride));
      },
      nb::arg("device"), nb::arg("rows"), nb::arg("columns"), nb::arg("dtype"),
      nb::arg("address") = 0, nb::arg("gdma_row_stride") = false,
      "The W in [1, M] that needs the least local memory per NPU (ties: C <= X, then larger W).\n"
      "Example: best_w('npus=4,lmem=1024,align=128', 2, 40, 'f32') == 10.");
}

}  // namespace

void bind_npu(nb::module_& module) {
  nb::module_ m =
      module.def_submodule("npu", "NPU local memory (docs/design/npu-local-memory.md).");
  bind_device(m);
  bind_tensor(m);
  bind_matrix(m);
  bind_npu_plan(m);
}

}  // namespace tessera::python
