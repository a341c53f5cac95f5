// tessera.convert_file: a file's bytes converted into another file through the library's file
// conversion (the one `tessera convert` runs), so both refuse the same things with the same words.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "bindings.h"
#include "tessera/relayout/file_conversion.h"
#include "tessera/relayout/planner.h"
#include "tessera/tpu/target.h"

namespace nb = nanobind;

namespace tessera::python {
namespace {

// The destination layout's text, which reads OUT back (as the CLI prints after "--from").
std::string convert_file(const std::string& input, const std::string& output, std::string source,
                         std::string destination, std::optional<std::string_view> target,
                         std::string fill, bool keep_padding, bool overwrite, int threads,
                         std::string_view planner, std::string_view variant, bool durable,
                         nb::object progress) {
  relayout::FileConversionOptions options;
  options.from = std::move(source);
  options.to = std::move(destination);
  // As the CLI: the given target, else TESSERA_TARGET, else the layouts as written.
  options.target = tpu::tpu_target_or_environment(target, std::nullopt, 0, "none");
  options.fill = std::move(fill);
  options.overwrite = overwrite;
  options.relayout.threads = threads;
  options.relayout.keep_padding = keep_padding;
  options.relayout.planner = relayout::parse_planner_mode(planner);
  options.relayout.variant = relayout::ForcedVariant::parse(variant);
  nb::gil_scoped_release release;
  relayout::FileConversion conversion(input, output, options);
  relayout::FileProgress report;
  if (!progress.is_none()) {
    // An exception the callable raises stops the conversion; OUT is then left as it was.
    report = [&progress](int64_t done, int64_t total) {
      nb::gil_scoped_acquire hold;
      progress(done, total);
    };
  }
  conversion.write(report, durable);
  return conversion.destination().text;
}

}  // namespace

void bind_file_conversion(nb::module_& module) {
  module.def(
      "convert_file", &convert_file, nb::arg("input"), nb::arg("output"), nb::arg("source") = "",
      nb::arg("destination") = "", nb::kw_only(), nb::arg("target").none() = nb::none(),
      nb::arg("fill") = "", nb::arg("keep_padding") = false, nb::arg("overwrite") = false,
      nb::arg("threads") = 0, nb::arg("planner") = "estimate", nb::arg("variant") = "",
      nb::arg("durable") = false, nb::arg("progress") = nb::none(),
      "Converts the file `input` into `output`, as `tessera convert --from SOURCE --to\n"
      "DESTINATION IN OUT` does: raw files hold a layout's bytes, .npy files the logical\n"
      "array (its layout may then be omitted). Layouts: an XLA shape with layout, or an NPU\n"
      "operand 'npu:DEVICE:N,C,H,W:DTYPE:ADDRESS[:LAYOUT[:MODE]]'. target: tiles for a raw\n"
      "side's shape written without tiles (default: TESSERA_TARGET, else none). fill: the\n"
      "padding's value as text ('1.5', '0x7fc00000'). output is written into a temporary\n"
      "file renamed into place on success; durable: wait until it is on disk. progress:\n"
      "optional callable(done_bytes, total_bytes). Returns the destination layout actually\n"
      "written (target tiles filled in), which reads output back as a raw file.");
}

}  // namespace tessera::python
