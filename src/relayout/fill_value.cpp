#include "tessera/relayout/fill_value.h"

#include <fmt/format.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

#include "tessera/error.h"

namespace tessera::relayout {
namespace {

[[noreturn]] void refuse(std::string_view text, ElementType type, std::string_view why) {
  throw Error(ErrorKind::kArgument, fmt::format("fill value '{}' is not a {} value: {}", text,
                                                element_type_name(type), why));
}

uint64_t mask(int bits) {
  return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

// A binary64 value rounded once, to nearest even, into a narrower IEEE binary format with
// `exponent_bits` and `mantissa_bits` (f16: 5, 10; bf16: 8, 7; f32: 8, 23), with subnormals and
// overflow to infinity. Rounding straight from the double, not through float, is what NumPy does
// (np.float16(1.000488281250001) is 0x3c01; through float it would be 0x3c00). NaN stays quiet.
uint64_t narrow_float_bits(double value, int exponent_bits, int mantissa_bits) {
  const uint64_t x = std::bit_cast<uint64_t>(value);
  const uint64_t sign = (x >> 63) << (exponent_bits + mantissa_bits);
  const int exponent = static_cast<int>((x >> 52) & 0x7ff);
  uint64_t mantissa = x & ((uint64_t{1} << 52) - 1);
  const int all_ones = (1 << exponent_bits) - 1;
  const uint64_t infinity = static_cast<uint64_t>(all_ones) << mantissa_bits;
  if (exponent == 0x7ff)
    return sign | infinity | (mantissa != 0 ? uint64_t{1} << (mantissa_bits - 1) : 0);
  if (exponent == 0) return sign;  // double subnormals are below every narrower format's range
  const int e = exponent - 1023 + (all_ones >> 1);
  if (e >= all_ones) return sign | infinity;
  int shift = 52 - mantissa_bits;
  uint64_t result = 0;
  if (e <= 0) {
    if (e < -mantissa_bits) return sign;  // below half the smallest subnormal
    mantissa |= uint64_t{1} << 52;
    shift += 1 - e;
  } else {
    result = static_cast<uint64_t>(e) << mantissa_bits;
  }
  result |= mantissa >> shift;
  const uint64_t rest = mantissa & ((uint64_t{1} << shift) - 1);
  const uint64_t halfway = uint64_t{1} << (shift - 1);
  if (rest > halfway || (rest == halfway && (result & 1) != 0)) ++result;  // may carry into inf
  return sign | result;
}

bool is_signed_integer(ElementType type) {
  return std::string_view(element_type_name(type)).starts_with("s");
}

std::string range_text(ElementType type) {
  const int bits = bit_width(type);
  if (is_signed_integer(type))
    return fmt::format("out of range [{}, {}]", static_cast<int64_t>(~mask(bits - 1)),
                       static_cast<int64_t>(mask(bits - 1)));
  return fmt::format("out of range [0, {}]", mask(bits));
}

// An integer type's value: decimal digits, or a number with an integral value (`1e3`, `2.0`,
// what Python's float 2.0 prints). NaN, fractions and values outside the type are refused.
uint64_t integer_bits(std::string_view text, ElementType type) {
  const int bits = bit_width(type);
  const char* begin = text.data();
  const char* end = begin + text.size();
  const bool is_signed = is_signed_integer(type);
  if (is_signed) {
    int64_t v = 0;
    const auto [at, error] = std::from_chars(begin, end, v);
    if (at == end && error == std::errc::result_out_of_range) refuse(text, type, range_text(type));
    if (at == end && error == std::errc()) {
      if (v < static_cast<int64_t>(~mask(bits - 1)) || v > static_cast<int64_t>(mask(bits - 1)))
        refuse(text, type, range_text(type));
      return static_cast<uint64_t>(v) & mask(bits);
    }
  } else {
    uint64_t v = 0;
    const bool negative = text.starts_with('-');
    const auto [at, error] = std::from_chars(begin + (negative ? 1 : 0), end, v);
    if (at == end &&
        (error == std::errc::result_out_of_range || (error == std::errc() && negative && v != 0)))
      refuse(text, type, range_text(type));
    if (at == end && error == std::errc()) {
      if (v > mask(bits)) refuse(text, type, range_text(type));
      return v;
    }
  }
  double v = 0;
  const auto [at, error] = std::from_chars(begin, end, v);
  if (at != end || (error != std::errc() && error != std::errc::result_out_of_range) ||
      !std::isfinite(v) || v != std::trunc(v))
    refuse(text, type, "not an integer");
  // Powers of two are exact in a double, so these comparisons are exact.
  const double low = is_signed ? -std::ldexp(1.0, bits - 1) : 0.0;
  const double high = std::ldexp(1.0, is_signed ? bits - 1 : bits);  // excluded
  if (error == std::errc::result_out_of_range || v < low || v >= high)
    refuse(text, type, range_text(type));
  if (is_signed) return static_cast<uint64_t>(static_cast<int64_t>(v)) & mask(bits);
  return static_cast<uint64_t>(v);
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
  if (is_integral(type)) return integer_bits(text, type);
  double v = 0;
  const auto [at, error] = std::from_chars(begin, end, v);
  if (at != end || text.empty() ||
      (error != std::errc() && error != std::errc::result_out_of_range))
    refuse(text, type, "not a number");
  // from_chars leaves the value alone when out of range; strtod says which way (a too small
  // value is zero, as in NumPy; a too large one does not fit).
  if (error == std::errc::result_out_of_range) v = std::strtod(std::string(text).c_str(), nullptr);
  if (std::isinf(v) && error == std::errc::result_out_of_range)
    refuse(text, type, "out of range (beyond the largest finite value)");
  int exponent_bits = 0;
  int mantissa_bits = 0;
  switch (type) {
    case ElementType::kF64:
    case ElementType::kC128:
      return std::bit_cast<uint64_t>(v);  // c128: the real part
    case ElementType::kF16:
      exponent_bits = 5, mantissa_bits = 10;
      break;
    case ElementType::kBF16:
      exponent_bits = 8, mantissa_bits = 7;
      break;
    case ElementType::kF32:
    case ElementType::kC64:  // the real part
      exponent_bits = 8, mantissa_bits = 23;
      break;
    default:
      // f8/f4 formats differ in their infinities and NaNs: only zero, whose bits are all zero in
      // every one that has a zero, is taken as a number.
      if (v == 0 && !std::signbit(v) && type != ElementType::kF8E8M0FNU) return 0;
      refuse(text, type, "give this type's fill value as raw bits, e.g. 0x0");
  }
  const uint64_t result = narrow_float_bits(v, exponent_bits, mantissa_bits);
  const uint64_t infinity = mask(exponent_bits) << mantissa_bits;
  if (std::isfinite(v) && (result & infinity) == infinity)
    refuse(text, type, "out of range (beyond the largest finite value)");
  return result;
}

}  // namespace tessera::relayout
