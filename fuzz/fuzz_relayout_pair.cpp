// Fuzzes the relayout planner: two conversion operands on two lines, as `tessera convert` reads
// them (XLA shapes, or "npu:..." local-memory tensors). When both parse, describe the same small
// array and compile, converting must match the per-element reference (IndexMap's linear_index)
// on every element and leave only fill in the padding.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "tessera/error.h"
#include "tessera/relayout/layout_operand.h"
#include "tessera/relayout/relayout_plan.h"

namespace {

uint64_t element(const std::vector<std::byte>& buffer, int64_t offset, int bits) {
  uint64_t v = 0;
  for (int b = 0; b < bits && b < 64; ++b) {
    const int64_t bit = offset * bits + b;
    v |= static_cast<uint64_t>((static_cast<unsigned>(buffer[bit / 8]) >> (bit % 8)) & 1u) << b;
  }
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::size_t newline = text.find('\n');
  if (newline == std::string_view::npos) return 0;
  try {
    const auto a = tessera::relayout::parse_layout_operand(text.substr(0, newline));
    const auto b = tessera::relayout::parse_layout_operand(text.substr(newline + 1));
    const auto& ma = *a.map;
    const auto& mb = *b.map;
    // No guard on element widths: E(n) wider than 64 bits must be refused by the plan or copied
    // exactly (a width guard here once hid a stack overflow in the element accessors).
    if (ma.size_elements() > 4096 || mb.size_elements() > 4096 || ma.size_bytes() > (1 << 20) ||
        mb.size_bytes() > (1 << 20))
      return 0;
    const auto plan =
        tessera::relayout::plan(ma, mb, {.threads = 2, .fill_bits = 0x5a5a5a5a5a5a5a5a});
    std::vector<std::byte> source(static_cast<std::size_t>(ma.size_bytes()));
    for (std::size_t i = 0; i < source.size(); ++i) source[i] = static_cast<std::byte>(i * 131 + 7);
    std::vector<std::byte> destination(static_cast<std::size_t>(mb.size_bytes()), std::byte{0});
    plan.execute(source, destination);
    const int bits = std::min(ma.element_bits(), mb.element_bits());
    const uint64_t mask = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    const uint64_t fill_mask =
        mb.element_bits() >= 64 ? ~uint64_t{0} : (uint64_t{1} << mb.element_bits()) - 1;
    // An NPU image fills its tensor's own padding (channel slots) and leaves the bytes that are
    // not the tensor's (the gap up to an aligned C stride: other tensors' space) untouched.
    const bool npu_image = b.text.starts_with("npu:");
    for (int64_t offset = 0; offset < mb.size_elements(); ++offset) {
      const auto index = mb.logical_index(offset);
      const uint64_t got = element(destination, offset, mb.element_bits());
      if (index) {
        if ((got & mask) != (element(source, ma.linear_index(*index), ma.element_bits()) & mask))
          __builtin_trap();
      } else if (got != (0x5a5a5a5a5a5a5a5aull & fill_mask) && !(npu_image && got == 0)) {
        __builtin_trap();
      }
    }
  } catch (const tessera::Error&) {
    return 0;
  }
  return 0;
}
