// The padding fill value as the user writes it, turned into an element's bit pattern.
#pragma once

#include <cstdint>
#include <string_view>

#include "tessera/element_type.h"

namespace tessera::relayout {

// Parses a fill value for elements of `type` into its bit pattern (RelayoutOptions::fill_bits):
// a number in the type (`1.5` for floats, rounded to nearest even; `-1` for s8 is 0xff),
// `true`/`false` for pred, or raw bits in hex (`0x7fc00000`) for any type. Throws
// Error(kInvalid) for text that is not a value of the type or is out of its range:
//   parse_fill_value("1", kF32) == 0x3f800000, parse_fill_value("-1", kS4) == 0xf,
//   parse_fill_value("1", kBF16) == 0x3f80, parse_fill_value("300", kU8) throws.
uint64_t parse_fill_value(std::string_view text, ElementType type);

}  // namespace tessera::relayout
