// Buffers of random bytes for the relayout tests (sources, and destinations whose untouched bytes
// must survive).
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace tessera::test_support {

inline std::vector<std::byte> random_bytes(int64_t n, std::mt19937_64& rng) {
  std::vector<std::byte> bytes(static_cast<std::size_t>(n));
  for (std::byte& b : bytes) b = static_cast<std::byte>(rng());
  return bytes;
}

}  // namespace tessera::test_support
