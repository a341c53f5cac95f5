// The extension module `tessera._tessera`; the public face is python/tessera/__init__.py.
#include <nanobind/nanobind.h>

#include "bindings.h"
#include "tessera/version.h"

NB_MODULE(_tessera, module) {
  module.doc() = "tessera's C++ library: accelerator memory layouts (see the tessera package).";
  module.attr("__version__") = TESSERA_VERSION;
  tessera::python::bind_errors(module);
  tessera::python::bind_index_map(module);
  tessera::python::bind_layout(module);
  tessera::python::bind_npu(module);
  tessera::python::bind_relayout(module);
  tessera::python::bind_file_conversion(module);
  tessera::python::bind_planner(module);
  tessera::python::bind_explain(module);
  tessera::python::bind_inputs(module);
  tessera::python::bind_diff(module);
}
