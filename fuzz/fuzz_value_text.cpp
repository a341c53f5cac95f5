// Fuzzes the small value parsers behind command-line flags and Python arguments: --fill values
// for every element type, integers and integer lists, element type and target names. Input: one
// byte choosing the element type, then the text. Any text must be refused with tessera::Error (or
// nullopt) or give a value that fits: fill bits within the type's width, a type whose name parses
// back to it.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tessera/element_type.h"
#include "tessera/error.h"
#include "tessera/integer_text.h"
#include "tessera/relayout/fill_value.h"
#include "tessera/tpu/target_profile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const auto types = tessera::all_element_types();
  const tessera::ElementType type = types[data[0] % types.size()];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    const uint64_t bits = tessera::relayout::parse_fill_value(text, type);
    const int width = tessera::bit_width(type);
    if (width < 64 && (bits >> width) != 0) __builtin_trap();
  } catch (const tessera::Error&) {
  }
  try {
    tessera::parse_integer(text, "value");
  } catch (const tessera::Error&) {
  }
  try {
    tessera::parse_integer_list(text, "values");
  } catch (const tessera::Error&) {
  }
  if (const auto parsed = tessera::parse_element_type(text)) {
    if (tessera::parse_element_type(tessera::element_type_name(*parsed)) != parsed) {
      __builtin_trap();
    }
  }
  try {
    tessera::tpu::parse_tpu_target(text);
  } catch (const tessera::Error&) {
  }
  return 0;
}
