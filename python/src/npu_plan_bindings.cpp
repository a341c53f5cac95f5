// tessera.npu's plan functions (tessera/npu/plan_check.h): the JSON text of a plan in, the same
// dict `tessera npu plan --json` prints out. The Python class Plan (python/tessera/npu.py) wraps
// them, so the one parser and checker serve CLI and Python alike.
#include <nanobind/stl/string.h>

#include <string>

#include "bindings.h"
#include "python_values.h"
#include "tessera/npu/local_plan.h"
#include "tessera/npu/plan_check.h"
#include "tessera/npu/tpu_mlir_local_plan.h"
#include "tessera/render/npu_plan_picture.h"
#include "tessera/render/tpu_mlir_plan_picture.h"

namespace nb = nanobind;

namespace tessera::python {

void bind_npu_plan(nb::module_& m) {
  m.def(
      "_check_plan",
      [](const std::string& text, int64_t max_overlaps) {
        npu::PlanCheck check;
        {
          nb::gil_scoped_release release;
          check =
              npu::check_local_plan(npu::parse_local_plan_text(text), {.max_listed = max_overlaps});
        }
        return json_to_python(npu::plan_check_json(check));
      },
      nb::arg("plan_json"), nb::arg("max_overlaps"),
      "The report of `tessera npu plan --json --max-overlaps N` for a plan given as JSON text.");
  m.def(
      "_read_plan_file",
      [](const std::string& path) {
        nb::gil_scoped_release release;
        // The CLI's reader: a FIFO or device is refused without blocking, errors name the file.
        return npu::local_plan_json(npu::read_local_plan(path)).dump();
      },
      nb::arg("path"), "The plan in a file, as the JSON text `tessera npu plan FILE` reads.");
  m.def(
      "_draw_plan",
      [](const std::string& text, const std::string& path) {
        nb::gil_scoped_release release;
        const npu::PlanCheck check = npu::check_local_plan(npu::parse_local_plan_text(text));
        render::write_picture(render::build_npu_plan_picture(check), path);
      },
      nb::arg("plan_json"), nb::arg("path"), "Draws the plan like `tessera npu plan -o PATH`.");
  m.def(
      "_is_tpu_mlir_plan_file",
      [](const std::string& path) {
        nb::gil_scoped_release release;
        return npu::is_tpu_mlir_plan_file(path);
      },
      nb::arg("path"), "Whether `tessera npu plan PATH` reads PATH as tpu-mlir's *_final.mlir.");
  m.def(
      "_check_tpu_mlir_plan",
      [](const std::string& path, int64_t max_overlaps) {
        npu::TpuMlirPlanCheck check;
        {
          nb::gil_scoped_release release;
          check =
              npu::check_tpu_mlir_plan(npu::read_tpu_mlir_plan(path), {.max_listed = max_overlaps});
        }
        return json_to_python(npu::tpu_mlir_plan_json(check));
      },
      nb::arg("path"), nb::arg("max_overlaps"),
      "The report of `tessera npu plan MODEL_final.mlir --json --max-overlaps N`.");
  m.def(
      "_draw_tpu_mlir_plan",
      [](const std::string& file, const std::string& path) {
        nb::gil_scoped_release release;
        const npu::TpuMlirPlanCheck check = npu::check_tpu_mlir_plan(npu::read_tpu_mlir_plan(file));
        render::write_picture(render::build_tpu_mlir_plan_picture(check), path);
      },
      nb::arg("file"), nb::arg("path"),
      "Draws tpu-mlir's plan like `tessera npu plan MODEL_final.mlir -o PATH`.");
}

}  // namespace tessera::python
