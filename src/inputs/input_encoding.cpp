// Input text in the encodings logs are saved in: UTF-8 with or without a byte order mark, and
// UTF-16, which Windows PowerShell's `>` and Out-File write (little endian, with a BOM).
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "tessera/inputs/input_arrays.h"

namespace tessera::inputs {
namespace {

enum class Utf16 { kNo, kLittleEndian, kBigEndian };

constexpr std::size_t kSniffBytes = 512;

// A BOM says so; without one, text whose every other byte is 0 near the start is UTF-16 of
// mostly ASCII (what a log is), which UTF-8 text never is.
Utf16 utf16_order(std::string_view bytes, std::size_t& skip) {
  skip = 0;
  if (bytes.size() >= 2) {
    const auto b0 = static_cast<unsigned char>(bytes[0]);
    const auto b1 = static_cast<unsigned char>(bytes[1]);
    if ((b0 == 0xFF && b1 == 0xFE) || (b0 == 0xFE && b1 == 0xFF)) {
      skip = 2;
      return b0 == 0xFF ? Utf16::kLittleEndian : Utf16::kBigEndian;
    }
  }
  const std::size_t n = std::min(bytes.size(), kSniffBytes) & ~std::size_t{1};
  if (n < 4) return Utf16::kNo;
  std::size_t zero_odd = 0, zero_even = 0;
  for (std::size_t i = 0; i < n; i += 2) {
    zero_even += bytes[i] == '\0';
    zero_odd += bytes[i + 1] == '\0';
  }
  const std::size_t units = n / 2;
  if (zero_odd * 10 >= units * 9 && zero_even == 0) return Utf16::kLittleEndian;
  if (zero_even * 10 >= units * 9 && zero_odd == 0) return Utf16::kBigEndian;
  return Utf16::kNo;
}

void append_utf8(std::string& out, uint32_t code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xC0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xE0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

}  // namespace

std::optional<std::string> utf8_input_text(std::string_view bytes) {
  std::size_t skip = 0;
  const Utf16 order = utf16_order(bytes, skip);
  if (order == Utf16::kNo) {
    if (bytes.substr(0, 3) == "\xEF\xBB\xBF") return std::string(bytes.substr(3));
    return std::nullopt;
  }
  constexpr uint32_t kReplacement = 0xFFFD;  // a lone surrogate or a last odd byte
  const bool little = order == Utf16::kLittleEndian;
  auto unit = [&](std::size_t at) -> uint32_t {
    const auto lo = static_cast<unsigned char>(bytes[at + (little ? 0 : 1)]);
    const auto hi = static_cast<unsigned char>(bytes[at + (little ? 1 : 0)]);
    return static_cast<uint32_t>(hi) << 8 | lo;
  };
  std::string out;
  out.reserve(bytes.size() / 2 + 16);
  std::size_t i = skip;
  for (; i + 1 < bytes.size(); i += 2) {
    uint32_t code = unit(i);
    if (code >= 0xD800 && code < 0xDC00 && i + 3 < bytes.size()) {
      const uint32_t low = unit(i + 2);
      if (low >= 0xDC00 && low < 0xE000) {
        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
        i += 2;
      } else {
        code = kReplacement;
      }
    } else if (code >= 0xD800 && code < 0xE000) {
      code = kReplacement;
    }
    append_utf8(out, code);
  }
  if (i < bytes.size()) append_utf8(out, kReplacement);
  return out;
}

std::string_view utf8_view(std::string_view bytes, std::string& storage) {
  std::optional<std::string> utf8 = utf8_input_text(bytes);
  if (!utf8) return bytes;
  storage = std::move(*utf8);
  return storage;
}

}  // namespace tessera::inputs
