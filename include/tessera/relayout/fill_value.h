// The padding fill value as the user writes it, turned into an element's bit pattern. The one
// fill parser of the toolkit: the CLI's --fill and Python's fill= (numbers, bools, NaN, turned
// into this text by the package) both go through it, so both refuse the same values in the
// same words.
#pragma once

#include <cstdint>
#include <string_view>

#include "tessera/element_type.h"

namespace tessera::relayout {

// Parses a fill value for elements of `type` into its bit pattern (RelayoutOptions::fill_bits):
//  - integer types: a decimal integer, or a number with an integral value (`1e3`, `2.0`);
//    fractions, NaN and values outside the type are refused (`-1` for u8 is out of range);
//  - f16, bf16, f32, f64 (c64, c128: the real part): a decimal number, `nan` or `inf`, rounded
//    once from the double to nearest even as NumPy does; a finite value that rounds to
//    infinity (`1e39` for f32, `65520` for f16) is refused;
//  - pred: true, false, 1 or 0;
//  - other float formats (f8*, f4*): 0, or raw bits;
//  - any type: raw bits in hex (`0x7fc00000`), at most the type's width.
// Throws Error(kArgument) "fill value 'T' is not a TYPE value: WHY", e.g.
//   parse_fill_value("1", kF32) == 0x3f800000, parse_fill_value("-1", kS4) == 0xf,
//   parse_fill_value("1", kBF16) == 0x3f80, parse_fill_value("1.000488281250001", kF16) == 0x3c01,
//   parse_fill_value("300", kU8) throws "... out of range [0, 255]",
//   parse_fill_value("2.5", kS32) and ("nan", kS32) throw "... not an integer".
uint64_t parse_fill_value(std::string_view text, ElementType type);

}  // namespace tessera::relayout
