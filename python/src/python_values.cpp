#include "python_values.h"

#include <string>

namespace nb = nanobind;

namespace tessera::python {

nb::tuple as_tuple(std::span<const int64_t> values) {
  nb::list list;
  for (int64_t v : values) list.append(v);
  return nb::tuple(list);
}

nb::dict json_to_python(const nlohmann::ordered_json& json) {
  const std::string text = json.dump();
  return nb::cast<nb::dict>(
      nb::module_::import_("json").attr("loads")(nb::str(text.c_str(), text.size())));
}

}  // namespace tessera::python
