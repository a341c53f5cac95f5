// JAX's layout reprs in XLA's notation.
//
// JAX prints a layout as
//   Layout(major_to_minor=(0, 1), tiling=((8, 128), (2, 1)), sub_byte_element_size_in_bits=0)
// (older releases: DeviceLocalLayout(major_to_minor=..., _tiling=..., ...)), and an array's
// format as Format(layout=Layout(...), sharding=NamedSharding(...)). JAX lists dimensions most
// major first; XLA's minor_to_major lists them most minor first, so one is the other reversed:
// major_to_minor=(0, 1) is XLA's {1,0}. Pasting one for the other silently transposes the array.
// Example: f32[8,256] with the repr above -> f32[8,256]{1,0:T(8,128)(2,1)}.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/xla/shape.h"

namespace tessera::xla {

struct JaxLayout {
  std::vector<int64_t> major_to_minor;
  std::vector<xla::Tile> tiling;
  int64_t sub_byte_element_size_in_bits = 0;
  // The repr it was read from and where each field's value starts in it, so that errors found
  // later point into the user's text.
  std::string repr;
  std::optional<std::size_t> major_to_minor_at, tiling_at, sub_byte_element_size_at;
};

// Reads Layout(...), DeviceLocalLayout(...) (with tiling= or _tiling=) or Format(layout=...,
// sharding=...) (older JAX: Layout(device_local_layout=..., sharding=...)) as the Python call it
// is: balanced parentheses, known fields, nothing after the closing ')'. Throws Error with a
// caret under the repr for anything else (an AUTO layout included).
JaxLayout parse_jax_layout(std::string_view repr);

// `shape` (its own layout ignored) laid out as `layout` says; throws Error when the
// major_to_minor is not a permutation of the shape's dimensions or the tiling does not fit it,
// with a caret under the field of the repr.
xla::Shape apply_jax_layout(xla::Shape shape, const JaxLayout& layout);

// `tessera explain SHAPE --jax-layout REPR` and Layout.from_jax: the shape's text laid out by
// the repr, printed. A shape that writes a layout of its own ({...}) other than the repr's is
// refused rather than silently overridden.
std::string shape_with_jax_layout(std::string_view shape_text, std::string_view repr);

// The repr JAX would print for `layout`: "Layout(major_to_minor=(0, 1), tiling=((8, 128),),
// sub_byte_element_size_in_bits=0)".
std::string jax_layout_repr(const xla::Layout& layout);

// "JAX major_to_minor (0, 1) is XLA minor_to_major {1,0}: the same order reversed"
std::string jax_order_note(const JaxLayout& layout);

}  // namespace tessera::xla
