#include "tessera/integer_text.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cstdint>

#include "tessera/error.h"

namespace tessera {
std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

int64_t parse_integer(std::string_view text, std::string_view what) {
  return parse_integer(text, what, text);
}

int64_t parse_integer(std::string_view text, std::string_view what, std::string_view shown) {
  std::string_view digits = trim(text);
  const bool negative = digits.starts_with('-');
  if (negative) digits.remove_prefix(1);
  int base = 10;
  if (digits.starts_with("0x") || digits.starts_with("0X")) {
    digits.remove_prefix(2);
    base = 16;
  }
  uint64_t magnitude = 0;
  const auto [end, ec] =
      std::from_chars(digits.data(), digits.data() + digits.size(), magnitude, base);
  if (digits.empty() || ec == std::errc::invalid_argument || end != digits.data() + digits.size()) {
    throw Error(ErrorKind::kSyntax,
                fmt::format("{} '{}' is not an integer (decimal or 0x hex)", what, shown));
  }
  if (ec == std::errc::result_out_of_range || magnitude > static_cast<uint64_t>(INT64_MAX)) {
    throw Error(ErrorKind::kOverflow, fmt::format("{} '{}' does not fit in 64 bits", what, shown));
  }
  const auto value = static_cast<int64_t>(magnitude);
  return negative ? -value : value;
}

std::vector<int64_t> parse_integer_list(std::string_view text, std::string_view what) {
  std::vector<int64_t> values;
  if (trim(text).empty()) return values;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    values.push_back(parse_integer(text.substr(start, comma - start), what));
    if (comma == std::string_view::npos) return values;
    start = comma + 1;
  }
}

}  // namespace tessera
