#include "tessera/explain/xla_sizes.h"

#include <fmt/format.h>

#include "tessera/checked_arithmetic.h"

namespace tessera::explain {

int64_t unpadded_bytes(const xla::Shape& shape) {
  int64_t elements = 1;
  for (int64_t d : shape.dimensions) elements = checked_multiply(elements, d, "unpadded size");
  // Whole bytes per element as XLA's ShapeUtil::ByteSizeOfPrimitiveType counts them (pred = 1).
  const int bits = shape.element_type == ElementType::kPred ? 8 : bit_width(shape.element_type);
  return bytes_for_bits(elements, bits);
}

std::string xla_size_text(int64_t bytes) {
  const char* sign = bytes < 0 ? "-" : "";
  uint64_t magnitude =
      bytes < 0 ? uint64_t{0} - static_cast<uint64_t>(bytes) : static_cast<uint64_t>(bytes);
  if (magnitude < 1024) return fmt::format("{}{}B", sign, magnitude);
  static constexpr char kUnits[] = "KMGTPE";
  int unit = 0;
  while (magnitude >= uint64_t{1024} * 1024 && unit < 5) {
    magnitude /= 1024;
    ++unit;
  }
  const double value = static_cast<double>(magnitude) / 1024.0;
  return kUnits[unit] == 'K' ? fmt::format("{}{:.1f}K", sign, value)
                             : fmt::format("{}{:.2f}{}", sign, value, kUnits[unit]);
}

}  // namespace tessera::explain
