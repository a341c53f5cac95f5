// Parsing and printing XLA's shape-with-layout notation.
#pragma once

#include <string>
#include <string_view>

#include "tessera/xla/shape.h"

namespace tessera::xla {

// Parses and validates a shape with an optional layout. Friendlier than XLA's own parser: type
// names in any case (`F32[3,5]{1,0:T(2,2)}` as the spec writes it), spaces anywhere between
// tokens, properties in any order. A shape without a layout gets Layout::descending.
//
// Throws tessera::Error with the column of the problem for malformed text, and for values that
// are well-formed but invalid: a zero, negative or empty tile, '*' as the most minor tile entry,
// L(0), E(n) smaller than the type's bits, a minor_to_major that is not a permutation of the
// dimensions, unsupported properties (D, #, *, SC, P, M: see README), dynamic dimensions, tuples.
Shape parse_shape(std::string_view text);
// The same, and whether the text wrote a layout ("{...}"): `f32[1024,3]` is a device array whose
// dimension order the compiler chooses; `f32[1024,3]{1,0}` names its order.
Shape parse_shape(std::string_view text, bool& layout_written);

// XLA's canonical text, byte for byte: lower-case type, no spaces, properties in XLA's order
// (T, L, E, S). A scalar with the default layout prints without braces, as XLA does:
//   print_shape(parse_shape("F32[4, 5]")) == "f32[4,5]{1,0}", print_shape(f32 scalar) == "f32[]".
std::string print_shape(const Shape& shape);
// "{1,0:T(8,128)(2,1)}"
std::string print_layout(const Layout& layout);
// "(8,128)", "(*,2)"
std::string print_tile(const Tile& tile);

}  // namespace tessera::xla
