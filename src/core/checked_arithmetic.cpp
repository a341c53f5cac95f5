#include "tessera/checked_arithmetic.h"

#include <fmt/format.h>

#include <cstdint>

#include "tessera/error.h"

namespace tessera {

int64_t checked_multiply(int64_t a, int64_t b, std::string_view what) {
  int64_t result = 0;
  if (__builtin_mul_overflow(a, b, &result)) {
    throw Error(ErrorKind::kOverflow, fmt::format("{} overflows 64 bits ({} x {})", what, a, b));
  }
  return result;
}

int64_t checked_add(int64_t a, int64_t b, std::string_view what) {
  int64_t result = 0;
  if (__builtin_add_overflow(a, b, &result)) {
    throw Error(ErrorKind::kOverflow, fmt::format("{} overflows 64 bits ({} + {})", what, a, b));
  }
  return result;
}

int64_t round_up(int64_t a, int64_t b, std::string_view what) {
  return checked_multiply(ceil_divide(a, b), b, what);
}

int64_t bytes_for_bits(int64_t elements, int64_t bits) {
  __extension__ using Int128 = __int128;  // 64 x 64 bits needs 128 bits
  const Int128 bytes = (static_cast<Int128>(elements) * bits + 7) / 8;
  if (bytes > static_cast<Int128>(INT64_MAX)) {
    throw Error(ErrorKind::kOverflow,
                fmt::format("the size in bytes of {} elements of {} bits overflows 64 bits",
                            elements, bits));
  }
  return static_cast<int64_t>(bytes);
}

}  // namespace tessera
