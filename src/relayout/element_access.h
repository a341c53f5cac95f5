// Reading and writing one element of any bit width at an element offset. Sub-byte elements are
// packed low bits first, as XLA packs them (tiled layout spec, "Element size" E(n)).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace tessera::relayout {

inline uint64_t low_bits_mask(int bits) {
  return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

inline uint64_t read_element(const std::byte* base, int64_t offset, int bits) {
  if (bits % 8 == 0) {
    uint64_t v = 0;
    std::memcpy(&v, base + offset * (bits / 8), static_cast<std::size_t>(bits / 8));
    return v;
  }
  const int64_t bit = offset * bits;
  uint64_t v = 0;
  for (int got = 0; got < bits;) {  // at most a few bytes: bits < 64 here
    const int64_t at = bit + got;
    const int shift = static_cast<int>(at % 8);
    const int take = bits - got < 8 - shift ? bits - got : 8 - shift;
    const uint64_t byte = static_cast<uint8_t>(base[at / 8]);
    v |= ((byte >> shift) & low_bits_mask(take)) << got;
    got += take;
  }
  return v;
}

inline void write_element(std::byte* base, int64_t offset, int bits, uint64_t value) {
  if (bits % 8 == 0) {
    std::memcpy(base + offset * (bits / 8), &value, static_cast<std::size_t>(bits / 8));
    return;
  }
  const int64_t bit = offset * bits;
  for (int put = 0; put < bits;) {
    const int64_t at = bit + put;
    const int shift = static_cast<int>(at % 8);
    const int take = bits - put < 8 - shift ? bits - put : 8 - shift;
    const uint8_t mask = static_cast<uint8_t>(low_bits_mask(take) << shift);
    const uint8_t old = static_cast<uint8_t>(base[at / 8]);
    const uint8_t fresh = static_cast<uint8_t>(((value >> put) << shift) & mask);
    base[at / 8] = static_cast<std::byte>((old & ~mask) | fresh);
    put += take;
  }
}

// Converts an element between storage widths: narrowing keeps the low bits (an 8-bit pred or s4
// packs as its low bits); widening sign-extends when asked (signed types), else zero-extends.
inline uint64_t convert_width(uint64_t value, int from_bits, int to_bits, bool sign_extend) {
  if (to_bits <= from_bits) return value & low_bits_mask(to_bits);
  if (sign_extend && from_bits < 64 && ((value >> (from_bits - 1)) & 1) != 0) {
    value |= ~low_bits_mask(from_bits);
  }
  return value & low_bits_mask(to_bits);
}

}  // namespace tessera::relayout
