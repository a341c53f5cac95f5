// Constants both eras' TPU profiles share (tiled layout spec, "Examples of tiling formats").
#pragma once

#include <array>
#include <cstdint>

namespace tessera::tpu {

inline constexpr int64_t kTpuLanes = 128;  // the minor tile entry: one vector register row
inline constexpr int kTpuWordBits = 32;    // packing collects narrower values into 32 bits

// Rank-1 linear tiles: the smallest of these that holds the vector, else the last (f32[8..256]
// -> T(256), f32[512] -> T(512), f32[1280] -> T(1024)), in both eras.
inline constexpr std::array<int64_t, 3> kLinearTiles = {256, 512, 1024};

// Values of `bits` stored bits one 32-bit word packs: 1 for 32 bits and wider.
constexpr int64_t packing_of(int bits) {
  return bits < kTpuWordBits ? kTpuWordBits / bits : 1;
}

}  // namespace tessera::tpu
