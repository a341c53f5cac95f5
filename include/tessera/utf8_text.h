// User input quoted in messages: whole UTF-8 characters, invalid bytes escaped, columns counted
// in characters, so every message tessera prints is valid UTF-8 (issue 14 item 8: quoting one
// byte of `ÿ` printed a lone 0xc3).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tessera {

// `bytes` with every byte that is not part of a well-formed UTF-8 character (RFC 3629: no
// overlong forms, no surrogates, at most U+10FFFF) written as `\xNN`; valid text is unchanged:
//   printable_utf8("f32[ÿ]") == "f32[ÿ]", printable_utf8("a\xff" "b") == "a\\xffb".
std::string printable_utf8(std::string_view bytes);

// The character starting at byte `offset` of `bytes`, printable: a whole UTF-8 character, or
// `\xNN` for a byte that does not start one; "" at the end. character_at("(2,ÿ1)", 3) == "ÿ".
std::string character_at(std::string_view bytes, std::size_t offset);

// How many characters printable_utf8(bytes.substr(0, offset)) has: the column a caret under
// byte `offset` of the printed text goes to. display_column("(2,ÿ1)", 5) == 4.
std::size_t display_column(std::string_view bytes, std::size_t offset);

}  // namespace tessera
