// XLA's size words (xla_sizes.h). The text format is a fact about XLA's output, checked against
// public TPU OOM reports: "Size: 32.00G", "Unpadded size: 1.00G", "Extra memory due to padding:
// 31.00G (32.0x expansion)" (DifferentiableUniverseInitiative/flowpm#27), "reserved 4.0K" and
// "529.00M" (pytorch/xla#1735), "Unpadded size: 61.25M" (sokrypton/ColabFold#62).
#include "tessera/explain/xla_sizes.h"

#include <fmt/format.h>

#include <array>
#include <limits>

#include "tessera/checked_arithmetic.h"
#include "tessera/element_type.h"

namespace tessera::explain {

int64_t unpadded_bytes(const xla::Shape& shape) {
  int64_t elements = 1;
  for (int64_t d : shape.dimensions) elements = checked_multiply(elements, d, "element count");
  // default_storage_bits is XLA's ByteSizeOfPrimitiveType in bits: whole bytes.
  return checked_multiply(elements, int64_t{default_storage_bits(shape.element_type) / 8},
                          "unpadded size");
}

std::string xla_size_text(int64_t bytes) {
  if (bytes == std::numeric_limits<int64_t>::min()) return "-8E";
  const char* sign = bytes < 0 ? "-" : "";
  uint64_t value = bytes < 0 ? static_cast<uint64_t>(-bytes) : static_cast<uint64_t>(bytes);
  if (value < 1024) return fmt::format("{}{}B", sign, value);
  static constexpr std::array<char, 6> kUnits = {'K', 'M', 'G', 'T', 'P', 'E'};
  std::size_t unit = 0;
  while (value >= 1024 * 1024 && unit + 1 < kUnits.size()) {
    value /= 1024;
    ++unit;
  }
  const double shown = static_cast<double>(value) / 1024.0;
  if (unit == 0) return fmt::format("{}{:.1f}K", sign, shown);
  return fmt::format("{}{:.2f}{}", sign, shown, kUnits[unit]);
}

std::string xla_expansion_text(int64_t size_bytes, int64_t unpadded) {
  const double factor =
      unpadded == 0 ? 0.0 : static_cast<double>(size_bytes) / static_cast<double>(unpadded);
  return fmt::format("{:.1f}x expansion", factor);
}

}  // namespace tessera::explain
