#include "tessera/relayout/fill_value.h"

#include <fmt/format.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <string>

#include "tessera/error.h"

namespace tessera::relayout {
namespace {

[[noreturn]] void refuse(std::string_view text, ElementType type, std::string_view why) {
  throw Error(ErrorKind::kInvalid, fmt::format("fill value '{}' is not a {} value: {}", text,
                                               element_type_name(type), why));
}

uint64_t mask(int bits) {
  return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

// IEEE binary32 -> bfloat16, round to nearest even (NaN stays a quiet NaN).
uint64_t bfloat16_bits(float value) {
  const uint32_t x = std::bit_cast<uint32_t>(value);
  if (std::isnan(value)) return (x >> 16) | 0x40;
  return (x + 0x7fff + ((x >> 16) & 1)) >> 16;
}

// IEEE binary32 -> binary16, round to nearest even, with subnormals and overflow to infinity.
uint64_t half_bits(float value) {
  const uint32_t x = std::bit_cast<uint32_t>(value);
  const uint32_t sign = (x >> 16) & 0x8000;
  const int exponent = static_cast<int>((x >> 23) & 0xff);
  uint32_t mantissa = x & 0x7fffff;
  if (exponent == 255) return sign | 0x7c00 | (mantissa != 0 ? 0x200 : 0);
  const int e = exponent - 127 + 15;
  if (e >= 31) return sign | 0x7c00;
  int shift = 13;
  uint32_t half = 0;
  if (e <= 0) {
    if (e < -10) return sign;
    mantissa |= 0x800000;
    shift = 14 - e;
  } else {
    half = static_cast<uint32_t>(e) << 10;
  }
  half |= mantissa >> shift;
  const uint32_t rest = mantissa & ((1u << shift) - 1);
  const uint32_t halfway = 1u << (shift - 1);
  if (rest > halfway || (rest == halfway && (half & 1) != 0)) ++half;  // may carry into infinity
  return sign | half;
}

}  // namespace

uint64_t parse_fill_value(std::string_view text, ElementType type) {
  const int bits = bit_width(type);
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  if (text.starts_with("0x") || text.starts_with("0X")) {
    uint64_t raw = 0;
    const auto [at, error] = std::from_chars(begin + 2, end, raw, 16);
    if (error != std::errc() || at != end || text.size() == 2)
      refuse(text, type, "bad hexadecimal bits");
    if ((raw & ~mask(std::min(bits, 64))) != 0)
      refuse(text, type, fmt::format("more than {} bits", bits));
    return raw;
  }
  if (type == ElementType::kPred) {
    if (text == "true" || text == "1") return 1;
    if (text == "false" || text == "0") return 0;
    refuse(text, type, "use true, false, 1 or 0");
  }
  if (is_integral(type)) {
    int64_t v = 0;
    const auto [at, error] = std::from_chars(begin, end, v);
    if (error != std::errc() || at != end) refuse(text, type, "not an integer");
    const bool is_signed = std::string_view(element_type_name(type)).starts_with("s");
    const int64_t low = is_signed ? -(int64_t{1} << (bits - 1)) : 0;
    const int64_t high = is_signed ? (int64_t{1} << (bits - 1)) - 1
                                   : (bits >= 63 ? INT64_MAX : (int64_t{1} << bits) - 1);
    if (v < low || v > high) refuse(text, type, fmt::format("outside [{}, {}]", low, high));
    return static_cast<uint64_t>(v) & mask(bits);
  }
  const bool real = type == ElementType::kF16 || type == ElementType::kBF16 ||
                    type == ElementType::kF32 || type == ElementType::kF64 || is_complex(type);
  if (!real) refuse(text, type, "give this type's fill value as raw bits, e.g. 0x0");
  double v = 0;
  const auto [at, error] = std::from_chars(begin, end, v);
  if (error != std::errc() || at != end) refuse(text, type, "not a number");
  switch (type) {
    case ElementType::kF16:
      return half_bits(static_cast<float>(v));
    case ElementType::kBF16:
      return bfloat16_bits(static_cast<float>(v));
    case ElementType::kF64:
    case ElementType::kC128:
      return std::bit_cast<uint64_t>(v);  // c128: the real part
    default:
      return std::bit_cast<uint32_t>(static_cast<float>(v));  // f32, c64 real part
  }
}

}  // namespace tessera::relayout
