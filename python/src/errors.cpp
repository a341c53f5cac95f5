// tessera::Error becomes a Python exception whose message is exactly what the CLI prints after
// "error: ", and whose class says the kind. All are ValueError subclasses (the input was wrong).
#include <Python.h>

#include <array>
#include <utility>

#include "bindings.h"
#include "tessera/error.h"

namespace nb = nanobind;

namespace tessera::python {
namespace {

struct KindClass {
  ErrorKind kind;
  const char* name;
  const char* doc;
};

constexpr std::array<KindClass, 9> kKindClasses = {{
    {ErrorKind::kSyntax, "NotationError",
     "Malformed layout notation; the message shows the column."},
    {ErrorKind::kInvalid, "InvalidLayoutError", "Well-formed but meaningless (zero tile, ...)."},
    {ErrorKind::kUnsupported, "UnsupportedError", "Valid input tessera does not model."},
    {ErrorKind::kOutOfRange, "OutOfRangeError", "An index, offset or address outside its domain."},
    {ErrorKind::kOverflow, "SizeOverflowError", "A size that does not fit in 64 bits."},
    {ErrorKind::kDoesNotFit, "DoesNotFitError", "A tensor that does not fit in local memory."},
    {ErrorKind::kBufferSize, "BufferSizeError", "A buffer of the wrong size."},
    {ErrorKind::kIo, "IoError", "A file that could not be read or written."},
    {ErrorKind::kArgument, "ArgumentError",
     "An argument that does not fit where it goes: a fill value the element type cannot hold,\n"
     "an array of another dtype or shape, an out= that is read-only or overlaps the input."},
}};

// Owned by the module (added as attributes); the translator only borrows them.
PyObject* base_class = nullptr;
std::array<PyObject*, kKindClasses.size()> kind_classes{};

PyObject* new_class(nb::module_& module, const char* name, PyObject* base, const char* doc) {
  // Named after the extension so its stubs define the classes; tessera/__init__.py re-homes them
  // to `tessera` for readable tracebacks.
  const std::string qualified = std::string("tessera._tessera.") + name;
  PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, base, nullptr);
  if (type == nullptr) throw nb::python_error();
  module.attr(name) = nb::borrow(type);
  return type;
}

}  // namespace

void bind_errors(nb::module_& module) {
  base_class = new_class(module, "Error", PyExc_ValueError,
                         "Every error tessera reports: a ValueError whose message is the CLI's.");
  for (std::size_t i = 0; i < kKindClasses.size(); ++i) {
    kind_classes[i] = new_class(module, kKindClasses[i].name, base_class, kKindClasses[i].doc);
  }
  nb::register_exception_translator([](const std::exception_ptr& pointer, void*) {
    try {
      std::rethrow_exception(pointer);
    } catch (const Error& error) {
      PyObject* type = base_class;
      for (std::size_t i = 0; i < kKindClasses.size(); ++i) {
        if (kKindClasses[i].kind == error.kind()) type = kind_classes[i];
      }
      PyErr_SetString(type, error.what());
    }
  });
}

}  // namespace tessera::python
