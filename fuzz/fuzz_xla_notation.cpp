// Fuzzes the XLA notation parser and the layout compiler: any text must either be rejected with
// tessera::Error or give a layout whose canonical form re-parses to itself and whose index map
// agrees with the spec's level-by-level formula; error messages are valid UTF-8.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tessera/error.h"
#include "tessera/utf8_text.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  tessera::xla::Shape shape;
  try {
    shape = tessera::xla::parse_shape(text);
  } catch (const tessera::Error& error) {
    // Every message is printable UTF-8, whatever the input held; its
    // line breaks (the input and a caret under it) are its own.
    const std::string what = error.what();
    if (tessera::printable_lines(what) != what) __builtin_trap();
    return 0;
  }
  const std::string canonical = tessera::xla::print_shape(shape);
  if (tessera::xla::print_shape(tessera::xla::parse_shape(canonical)) != canonical)
    __builtin_trap();
  try {
    const tessera::xla::TiledLayout layout(shape);
    const auto& map = layout.index_map();
    if (map.size_elements() > 4096) return 0;
    for (int64_t offset = 0; offset < map.size_elements(); ++offset) {
      const auto index = map.logical_index(offset);
      if (index != layout.spec_logical_index(offset)) __builtin_trap();
      if (index && map.linear_index(*index) != offset) __builtin_trap();
    }
  } catch (const tessera::Error&) {
  }
  return 0;
}
