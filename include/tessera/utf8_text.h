// User input quoted in messages: whole UTF-8 characters, invalid bytes escaped, columns counted
// in characters, so every message tessera prints is valid UTF-8 (quoting one
// byte of `ÿ` printed a lone 0xc3).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tessera {

// `bytes` with every byte that is not part of a well-formed UTF-8 character (RFC 3629: no
// overlong forms, no surrogates, at most U+10FFFF) written as `\xNN` and every control character
// (U+0000-U+001F, U+007F-U+009F: a NUL would cut a C string short, an ESC drive the terminal, and
// XML allows none of them) as `\u00NN`; other valid text is unchanged:
//   printable_utf8("f32[ÿ]") == "f32[ÿ]", printable_utf8("a\xff" "b") == "a\\xffb",
//   printable_utf8("a\x01" "b") == "a\\u0001b".
std::string printable_utf8(std::string_view bytes);

// printable_utf8 of each line, keeping the line breaks: for messages that are several lines on
// purpose (the input and a caret under it).
std::string printable_lines(std::string_view bytes);

// Why `bytes` cannot be printed as it is, or "" when printable_utf8 would leave it unchanged:
// "byte 3 (0xc3) is not UTF-8" or "character 2 is the control character U+0001".
std::string unprintable_reason(std::string_view bytes);

// At most `max_bytes` of `bytes`, cut where a character starts rather than inside one (a cut
// UTF-8 character is not printable): prefix_of_characters("aÿ", 2) == "a".
std::string_view prefix_of_characters(std::string_view bytes, std::size_t max_bytes);

// The character starting at byte `offset` of `bytes`, printable: a whole UTF-8 character, or
// `\xNN` for a byte that does not start one; "" at the end. character_at("(2,ÿ1)", 3) == "ÿ".
std::string character_at(std::string_view bytes, std::size_t offset);

// How many characters printable_utf8(bytes.substr(0, offset)) has: the column a caret under
// byte `offset` of the printed text goes to. display_column("(2,ÿ1)", 5) == 4.
std::size_t display_column(std::string_view bytes, std::size_t offset);

}  // namespace tessera
