// Small helpers shared by the command files: parsing the CLI's own argument syntax.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::cli {

// "2,3" -> {2,3}; "" -> {} (a scalar's index). Throws tessera::Error naming `what` on bad text.
std::vector<int64_t> parse_integer_list(std::string_view text, std::string_view what);
// One decimal integer. Throws tessera::Error naming `what`.
int64_t parse_integer(std::string_view text, std::string_view what);
// "2,3"
std::string join_integers(const std::vector<int64_t>& values);

}  // namespace tessera::cli
