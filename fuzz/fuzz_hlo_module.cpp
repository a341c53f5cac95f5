// Fuzzes the HLO instruction reader and what stands on it: the copies of a module and
// the layout-mismatch errors of a text. Any text must be read without a crash or an escaping
// exception: malformed lines become warnings, unreadable layouts an error field.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tessera/inputs/hlo_copies.h"
#include "tessera/inputs/hlo_instructions.h"
#include "tessera/inputs/layout_mismatch.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size > 16384) return 0;  // bounded work per input: copies count their moved elements
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto module = tessera::inputs::parse_hlo_module(text);
  for (const auto& instruction : module.instructions) {
    if (instruction.name.empty()) __builtin_trap();  // an instruction always has its name
  }
  tessera::inputs::copies_json(tessera::inputs::find_copies(text));
  tessera::inputs::mismatches_json(tessera::inputs::find_layout_mismatches(text));
  return 0;
}
