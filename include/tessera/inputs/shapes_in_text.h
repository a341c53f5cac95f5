// Finding XLA shapes inside free text: log lines, HLO instructions, OOM reports.
//
// A shape token is an element type name directly followed by [dims] and, optionally, directly by
// {layout}: in `%r = bf16[16,12]{1,0:T(8,128)(2,1)} reshape(f32[] %c), dimensions={}` the tokens
// are "bf16[16,12]{1,0:T(8,128)(2,1)}" and "f32[]" ("dimensions={}" has no type, so it is not one).
// A tuple "(f32[2]{0}, (s32[], pred[4]{0}))" is read as its arrays with XLA's shape indices:
// {0} f32[2]{0}, {1,0} s32[], {1,1} pred[4]{0} — a tuple is never one array.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::inputs {

// Longest shape or tuple text read; longer ones are not shapes people write (bounded work).
inline constexpr std::size_t kMaxShapeTextLength = 4096;

struct ShapeToken {
  std::string text;         // the array shape as written, e.g. "s32[8,4]{1,0:T(8,128)}"
  std::string index;        // tuple index "{1,0}", empty for an array that is not in a tuple
  std::size_t begin = 0;    // offset of the token in the text searched
  bool has_layout = false;  // written with {...}
};

// Every array shape token in `text`, left to right (tuples are not grouped here), at most `limit`
// of them (a 50 MB log line can hold millions).
std::vector<ShapeToken> find_shapes(std::string_view text,
                                    std::size_t limit = static_cast<std::size_t>(-1));

// Moves `pos` past spaces, tabs and /* comments */: HLO text prints "/*index=5*/" before every
// fifth element of a long tuple or operand list.
void skip_blanks(std::string_view text, std::size_t& pos);

// Reads the array or tuple shape that starts at `text[pos]` (blanks skipped first) and moves
// `pos` past it. Returns nullopt, leaving `pos`, when no shape starts there.
// Example: read_shape_at("(f32[2]{0}, s32[]) tuple(...)", pos = 0) -> {"{0}" f32[2]{0}},
//   {"{1}" s32[]}, pos = 18.
std::optional<std::vector<ShapeToken>> read_shape_at(std::string_view text, std::size_t& pos);

}  // namespace tessera::inputs
