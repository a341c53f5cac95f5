// Fuzzes the input readers (OOM reports, HLO modules, shape text) and the explanation built on
// them: any text must be read and explained without a crash or an escaping exception other than
// tessera::Error (malformed input is reported as warnings).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tessera/error.h"
#include "tessera/inputs/input_explanation.h"
#include "tessera/inputs/jax_layout.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size > 8192) return 0;  // bounded work per input: explanations search layouts per array
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto reading = tessera::inputs::read_input(text);
  if (reading.arrays.size() > 64) return 0;
  tessera::inputs::explain_input(reading, {});
  try {
    tessera::inputs::parse_jax_layout(text);
  } catch (const tessera::Error&) {
  }
  return 0;
}
