#include "cli_support.h"

#include <fmt/format.h>

#include <charconv>

#include "tessera/error.h"

namespace tessera::cli {

int64_t parse_integer(std::string_view text, std::string_view what) {
  std::string_view trimmed = text;
  while (!trimmed.empty() && trimmed.front() == ' ') trimmed.remove_prefix(1);
  while (!trimmed.empty() && trimmed.back() == ' ') trimmed.remove_suffix(1);
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(trimmed.data(), trimmed.data() + trimmed.size(), value);
  if (ec == std::errc::result_out_of_range) {
    throw Error(ErrorKind::kOverflow, fmt::format("{} '{}' does not fit in 64 bits", what, text));
  }
  if (ec != std::errc() || end != trimmed.data() + trimmed.size() || trimmed.empty()) {
    throw Error(ErrorKind::kSyntax, fmt::format("{} '{}' is not an integer", what, text));
  }
  return value;
}

std::vector<int64_t> parse_integer_list(std::string_view text, std::string_view what) {
  std::vector<int64_t> values;
  if (text.find_first_not_of(' ') == std::string_view::npos) return values;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    values.push_back(parse_integer(text.substr(start, comma - start), what));
    if (comma == std::string_view::npos) return values;
    start = comma + 1;
  }
}

std::string join_integers(const std::vector<int64_t>& values) {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i)
    out += fmt::format("{}{}", i ? "," : "", values[i]);
  return out;
}

}  // namespace tessera::cli
