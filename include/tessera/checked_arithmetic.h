// 64-bit size arithmetic that reports overflow instead of wrapping (docs/design/architecture.md,
// "Layers").
#pragma once

#include <cstdint>
#include <string_view>

namespace tessera {

// a * b, or throws Error(kOverflow) naming `what` when the product does not fit in int64.
// Operands must be non-negative.
int64_t checked_multiply(int64_t a, int64_t b, std::string_view what);
// a + b, or throws Error(kOverflow) naming `what`.
int64_t checked_add(int64_t a, int64_t b, std::string_view what);

// ceil(a / b) for a >= 0, b > 0. Example: ceil_divide(5, 2) == 3, ceil_divide(0, 8) == 0.
constexpr int64_t ceil_divide(int64_t a, int64_t b) {
  return a / b + (a % b != 0 ? 1 : 0);
}
// The smallest multiple of b that is >= a: round_up(5, 4) == 8. Throws on overflow.
int64_t round_up(int64_t a, int64_t b, std::string_view what);

// Bytes that `elements` elements of `bits` bits occupy, rounded up: exact even when the bit
// count itself would overflow 64 bits. Throws Error(kOverflow) when the bytes do not fit.
int64_t bytes_for_bits(int64_t elements, int64_t bits);

}  // namespace tessera
