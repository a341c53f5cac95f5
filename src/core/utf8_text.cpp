#include "tessera/utf8_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <utility>

namespace tessera {
namespace {

// The length of the well-formed UTF-8 character at `offset`, or 0 when the byte there does not
// start one (RFC 3629 section 4 table of well-formed byte sequences).
std::size_t character_length(std::string_view bytes, std::size_t offset) {
  const auto byte = [&](std::size_t i) {
    return offset + i < bytes.size() ? static_cast<unsigned char>(bytes[offset + i]) : 0u;
  };
  const unsigned lead = byte(0);
  if (lead < 0x80) return 1;
  const auto continuation = [&](std::size_t i, unsigned low = 0x80, unsigned high = 0xbf) {
    return byte(i) >= low && byte(i) <= high;
  };
  if (lead >= 0xc2 && lead <= 0xdf) return continuation(1) ? 2 : 0;
  if (lead >= 0xe0 && lead <= 0xef) {
    const unsigned low = lead == 0xe0 ? 0xa0 : 0x80;   // no overlong forms
    const unsigned high = lead == 0xed ? 0x9f : 0xbf;  // no surrogates
    return continuation(1, low, high) && continuation(2) ? 3 : 0;
  }
  if (lead >= 0xf0 && lead <= 0xf4) {
    const unsigned low = lead == 0xf0 ? 0x90 : 0x80;
    const unsigned high = lead == 0xf4 ? 0x8f : 0xbf;  // at most U+10FFFF
    return continuation(1, low, high) && continuation(2) && continuation(3) ? 4 : 0;
  }
  return 0;
}

// The control character (C0, DEL or C1) of `length` bytes at `offset`, or nullopt.
std::optional<unsigned> control_character(std::string_view bytes, std::size_t offset,
                                          std::size_t length) {
  const auto lead = static_cast<unsigned char>(bytes[offset]);
  if (length == 1 && (lead < 0x20 || lead == 0x7f)) return lead;
  if (length == 2 && lead == 0xc2) {
    const auto second = static_cast<unsigned char>(bytes[offset + 1]);
    if (second <= 0x9f) return second;  // U+0080-U+009F
  }
  return std::nullopt;
}

// One character or invalid byte at `offset` as printed, and the bytes it took.
std::pair<std::string, std::size_t> printable_at(std::string_view bytes, std::size_t offset) {
  const std::size_t length = character_length(bytes, offset);
  if (length == 0) {
    return {fmt::format("\\x{:02x}", static_cast<unsigned char>(bytes[offset])), 1};
  }
  if (const auto control = control_character(bytes, offset, length)) {
    return {fmt::format("\\u{:04x}", *control), length};
  }
  return {std::string(bytes.substr(offset, length)), length};
}

}  // namespace

std::string printable_utf8(std::string_view bytes) {
  std::string result;
  result.reserve(bytes.size());
  for (std::size_t i = 0; i < bytes.size();) {
    const auto [text, length] = printable_at(bytes, i);
    result += text;
    i += length;
  }
  return result;
}

std::string printable_lines(std::string_view bytes) {
  std::string result;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = bytes.find('\n', start);
    result += printable_utf8(bytes.substr(start, end - start));
    if (end == std::string_view::npos) return result;
    result += '\n';
    start = end + 1;
  }
}

std::string unprintable_reason(std::string_view bytes) {
  std::size_t character = 0;
  for (std::size_t i = 0; i < bytes.size(); ++character) {
    const std::size_t length = character_length(bytes, i);
    if (length == 0) {
      return fmt::format("byte {} (0x{:02x}) is not UTF-8", i + 1,
                         static_cast<unsigned char>(bytes[i]));
    }
    if (const auto control = control_character(bytes, i, length)) {
      return fmt::format("character {} is the control character U+{:04X}", character + 1, *control);
    }
    i += length;
  }
  return "";
}

std::string_view prefix_of_characters(std::string_view bytes, std::size_t max_bytes) {
  std::size_t length = std::min(bytes.size(), max_bytes);
  // Back over continuation bytes (10xxxxxx) to the start of the character the cut falls in.
  while (length < bytes.size() && length > 0 &&
         (static_cast<unsigned char>(bytes[length]) & 0xC0) == 0x80) {
    --length;
  }
  return bytes.substr(0, length);
}

std::string character_at(std::string_view bytes, std::size_t offset) {
  if (offset >= bytes.size()) return "";
  return printable_at(bytes, offset).first;
}

std::size_t display_column(std::string_view bytes, std::size_t offset) {
  std::size_t column = 0;
  for (std::size_t i = 0; i < offset && i < bytes.size();) {
    const auto [text, length] = printable_at(bytes, i);
    column += length == text.size() ? 1 : text.size();  // an escape is as wide as its text
    i += length;
  }
  return column;
}

}  // namespace tessera
