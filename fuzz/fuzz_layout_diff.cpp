// Fuzzes `tessera diff`: two layouts on two lines, written as the CLI takes them (XLA
// shapes, "npu:..." tensors, JAX Layout reprs). When both parse and hold one small array, the
// closed-form count of moved elements must equal a comparison of every element's position, and
// the whole diff must build without a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tessera/error.h"
#include "tessera/explain/layout_diff.h"
#include "tessera/relayout/layout_operand.h"
#include "tessera/relayout/moved_elements.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::size_t newline = text.find('\n');
  if (newline == std::string_view::npos || size > 4096) return 0;
  const std::string_view a_text = text.substr(0, newline), b_text = text.substr(newline + 1);
  try {
    const auto a = tessera::relayout::parse_layout_operand(a_text);
    const auto b = tessera::relayout::parse_layout_operand(b_text);
    if (a.dims != b.dims || a.map->logical_elements() > 4096 || a.map->size_bytes() > (1 << 20) ||
        b.map->size_bytes() > (1 << 20)) {
      return 0;
    }
    const auto counted = tessera::relayout::count_moved_elements(*a.map, *b.map);
    int64_t stayed = 0;
    tessera::LogicalWalker wa(*a.map), wb(*b.map);
    for (; !wa.done(); wa.next(), wb.next()) {
      stayed += tessera::relayout::same_position(wa.offset(), a.map->element_bits(), wb.offset(),
                                                 b.map->element_bits());
    }
    if (counted.stayed != stayed || counted.moved + counted.stayed != counted.elements) {
      __builtin_trap();
    }
  } catch (const tessera::Error&) {
  }
  try {
    if (text.size() < 1024) tessera::explain::diff_layouts(a_text, b_text, {.threads = 1});
  } catch (const tessera::Error&) {
  }
  return 0;
}
