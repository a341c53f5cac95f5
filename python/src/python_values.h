// Library values as Python values: integer lists as tuples, JSON reports as dicts.
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>

namespace tessera::python {

// (3, 5) from {3, 5}.
nanobind::tuple as_tuple(std::span<const int64_t> values);

// A report of the library as plain Python objects, through the standard json module, so the
// result is exactly what the CLI's --json prints (keys in the same order).
nanobind::dict json_to_python(const nlohmann::ordered_json& json);

}  // namespace tessera::python
