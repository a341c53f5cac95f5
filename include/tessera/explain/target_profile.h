// A target profile: the tiles an accelerator picks for a shape written without tiles.
//
// The TPU profile is the tiled layout spec's "Examples of tiling formats" as one table
// (README: "Target profiles" shows it and says how to extend it):
//
//   element class          stored bits  packing p  tiles (rank >= 2)        example
//   32-bit (f32 s32 u32)        32          1      (R,128)                  f32[3,256] -> T(4,128)
//   64-bit, complex        own width        1      (R,128)                  c64[8,128] -> T(8,128)
//   16-bit (bf16 f16 ...)       16          2      (R,128)(2,1)             bf16 -> T(8,128)(2,1)
//   8-bit (s8 u8 f8*)            8          4      (R,128)(4,1)             s8 -> T(8,128)(4,1)
//   4-bit (s4 u4 f4e2m1fn)       4          8      (R,128)(8,1)E(4)
//   2-bit (s2 u2)                2         16      (R,128)(16,1)E(2)
//   1-bit (s1 u1)                1         32      (R,128)(32,1)E(1)
//   pred (today)                32          1      (R,128)E(32)             4 bytes per bool
//   pred (1-bit option)          1         32      (R,128)(32,1)E(1)        spec item 7
//
// R, the tile rows, comes from the "small tile" rule on the second most minor *physical*
// dimension: 1-2 -> 2, 3-4 -> 4, otherwise 8; then R = max(R, p) so the packing tile (p,1)
// never pads inside a tile (bf16[1,6144] -> T(2,128)(2,1) as XLA prints it; s8[1,256] ->
// T(4,128)(4,1); s4 always -> T(8,128)(8,1)E(4)).
// Rank 1 uses XLA's linear format T(128*max(2,p)) followed by (128)(p,1) when packed:
// f32[100] -> T(256), bf16[128] -> T(256)(128)(2,1); rank 0 is a rank-1 vector of one element
// (f32[] -> T(256), 1 KiB, as XLA prints f32[]{:T(256)}).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/element_type.h"
#include "tessera/xla/shape.h"

namespace tessera::explain {

enum class Target { kNone, kTpu };

// How a TPU stores pred: 4 bytes today, or the spec's proposed 1 bit.
enum class PredStorage { kFourBytes, kOneBit };

// "tpu" -> kTpu, "none" -> kNone; throws Error(kInvalid) listing the known targets otherwise.
Target parse_target(std::string_view name);
std::string_view target_name(Target target);

// What a profile chose for one shape, and why, in words.
struct TileChoice {
  std::vector<xla::Tile> tiles;
  int64_t element_size_in_bits = 0;  // E(n), 0 when the type's default storage is kept
  std::string rule;                  // "16-bit, packing (2,1); second minor 3 -> 4 rows"
};

// The tile rows of the small tile rule for a second most minor dimension of `size`:
// tpu_tile_rows(1) == 2, tpu_tile_rows(4) == 4, tpu_tile_rows(5) == 8, tpu_tile_rows(0) == 8.
int64_t tpu_tile_rows(int64_t second_minor_size);

// Bits one element of `type` occupies on a TPU: tpu_stored_bits(kBF16) == 16,
// tpu_stored_bits(kPred) == 32 (or 1 with PredStorage::kOneBit), tpu_stored_bits(kS4) == 4.
int tpu_stored_bits(ElementType type, PredStorage pred);

// The TPU tiles for `type` laid out with physical dims `physical_order_dims` (most major first).
// Example: choose_tpu_tiles(kBF16, {7, 3, 256}) -> tiles (4,128)(2,1), element bits 0.
TileChoice choose_tpu_tiles(ElementType type, std::span<const int64_t> physical_order_dims,
                            PredStorage pred = PredStorage::kFourBytes);

// `shape` with the target's tiles applied to its own minor_to_major, unless the layout already
// names tiles or E(n) (then it is returned unchanged and `choice`, if given, says so).
// Example: apply_target(parse_shape("s32[2048,1,128,128,4]"), kTpu) ->
//   s32[2048,1,128,128,4]{4,3,2,1,0:T(8,128)}.
xla::Shape apply_target(xla::Shape shape, Target target, PredStorage pred = PredStorage::kFourBytes,
                        TileChoice* choice = nullptr);

}  // namespace tessera::explain
