// tessera.npu's plan functions (tessera/npu/plan_check.h): the JSON text of a plan in, the same
// dict `tessera npu plan --json` prints out. The Python class Plan (python/tessera/npu.py) wraps
// them, so the one parser and checker serve CLI and Python alike.
#include <nanobind/stl/string.h>

#include <string>

#include "bindings.h"
#include "python_values.h"
#include "tessera/npu/local_plan.h"
#include "tessera/npu/plan_check.h"
#include "tessera/render/npu_plan_picture.h"

namespace nb = nanobind;

namespace tessera::python {

void bind_npu_plan(nb::module_& m) {
  m.def(
      "_check_plan",
      [](const std::string& text) {
        npu::PlanCheck check;
        {
          nb::gil_scoped_release release;
          check = npu::check_local_plan(npu::parse_local_plan_text(text));
        }
        return json_to_python(npu::plan_check_json(check));
      },
      nb::arg("plan_json"),
      "The report of `tessera npu plan --json` for a plan given as JSON text.");
  m.def(
      "_draw_plan",
      [](const std::string& text, const std::string& path) {
        nb::gil_scoped_release release;
        const npu::PlanCheck check = npu::check_local_plan(npu::parse_local_plan_text(text));
        render::write_picture(render::build_npu_plan_picture(check), path);
      },
      nb::arg("plan_json"), nb::arg("path"), "Draws the plan like `tessera npu plan -o PATH`.");
}

}  // namespace tessera::python
