#include "tessera/utf8_text.h"

#include <fmt/format.h>

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

std::string escaped(unsigned char byte) {
  return fmt::format("\\x{:02x}", byte);
}

}  // namespace

std::string printable_utf8(std::string_view bytes) {
  std::string result;
  result.reserve(bytes.size());
  for (std::size_t i = 0; i < bytes.size();) {
    const std::size_t length = character_length(bytes, i);
    if (length == 0) {
      result += escaped(static_cast<unsigned char>(bytes[i]));
      ++i;
    } else {
      result.append(bytes.substr(i, length));
      i += length;
    }
  }
  return result;
}

std::string character_at(std::string_view bytes, std::size_t offset) {
  if (offset >= bytes.size()) return "";
  const std::size_t length = character_length(bytes, offset);
  if (length == 0) return escaped(static_cast<unsigned char>(bytes[offset]));
  return std::string(bytes.substr(offset, length));
}

std::size_t display_column(std::string_view bytes, std::size_t offset) {
  std::size_t column = 0;
  for (std::size_t i = 0; i < offset && i < bytes.size();) {
    const std::size_t length = character_length(bytes, i);
    column += length == 0 ? 4 : 1;  // `\xNN`
    i += length == 0 ? 1 : length;
  }
  return column;
}

}  // namespace tessera
