// Fuzzes the --window parser: any text is either rejected with tessera::Error or gives
// non-empty ranges that resolve against a grid or are rejected with tessera::Error.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tessera/error.h"
#include "tessera/render/grid_window.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const tessera::render::GridWindow window = tessera::render::parse_window(text);
    if (window.row_end <= window.row_begin) __builtin_trap();
    if (window.col_end != -1 && window.col_end <= window.col_begin) __builtin_trap();
    const auto resolved = tessera::render::resolve_window(window, 1000, 1000, 4096);
    if (resolved.cells() > 4096 || resolved.row_end > 1000 || resolved.col_end > 1000) __builtin_trap();
  } catch (const tessera::Error&) {
  }
  return 0;
}
