// Fuzzes the input readers (OOM reports, HLO modules, shape text) and the explanation built on
// them: any text must be read and explained without a crash or an escaping exception other than
// tessera::Error (malformed input is reported as warnings).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tessera/error.h"
#include "tessera/inputs/input_explanation.h"
#include "tessera/utf8_text.h"
#include "tessera/xla/jax_layout.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size > 8192) return 0;  // bounded work per input: explanations search layouts per array
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto reading = tessera::inputs::read_input(text);
  if (reading.arrays.size() > 64) return 0;
  // Whatever bytes came in, what is printed is printable UTF-8.
  const auto explanation = tessera::inputs::explain_input(reading, {});
  const std::string printed = tessera::inputs::input_explanation_text(explanation, 0);
  if (tessera::printable_lines(printed) != printed) __builtin_trap();
  for (const auto& warning : explanation.warnings) {
    if (tessera::printable_lines(warning) != warning) __builtin_trap();
  }
  try {
    tessera::xla::parse_jax_layout(text);
  } catch (const tessera::Error&) {
  }
  return 0;
}
