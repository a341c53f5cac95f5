// Integers as people type them in arguments: the one parser every front end and family uses.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace tessera {

// `text` without leading and trailing white space: trim(" 0x40 ") == "0x40".
std::string_view trim(std::string_view text);

// A decimal or 0x-hex integer, optionally negative, surrounding spaces ignored:
// parse_integer(" 0x40 ", "address") == 64. Throws Error(kSyntax) "address '12ab' is not an
// integer (decimal or 0x hex)" or Error(kOverflow) when it does not fit in 64 bits. Messages quote
// `shown` (by default the text itself), so a caller that stripped a suffix can quote the original.
int64_t parse_integer(std::string_view text, std::string_view what);
int64_t parse_integer(std::string_view text, std::string_view what, std::string_view shown);

// "2,3" -> {2,3}; "" (or only spaces) -> {} (a scalar's index). Each component as parse_integer.
std::vector<int64_t> parse_integer_list(std::string_view text, std::string_view what);

}  // namespace tessera
