// The TPU profile of XLA era 2020: the public 2019-2021 reports, reproduced with the rules
// below and the per-generation rows of generations.h, each beside the public XLA output it rests
// on. It keeps the written order of the dims:
//
//   element class          stored bits  packing p  tiles (rank >= 2)        example
//   32-bit (f32 s32 u32)        32          1      (R,128)                  f32[3,256] -> T(4,128)
//   64-bit, complex        own width        1      (R,128)                  c64[8,128] -> T(8,128)
//   16-bit (bf16 f16 ...)       16          2      (R,128)(2,1)             bf16 -> T(8,128)(2,1)
//   8-bit (s8 u8 f8*)            8          4      (R,128)(4,1)             s8 -> T(8,128)(4,1)
//   4-bit (s4 u4 f4e2m1fn)       4          8      (R,128)(8,1)E(4)
//   2-bit (s2 u2)                2         16      (R,128)(16,1)E(2)
//   1-bit (s1 u1)                1         32      (R,128)(32,1)E(1)
//   pred, --pred-bits 32        32          1      (R,128)E(32)             tpu-v2, tpu-v3
//   pred, --pred-bits 8          8          4      (R,128)(4,1)             tpu-v4 and later
//   pred, --pred-bits 1          1         32      (R,128)(32,1)E(1)        spec item 7
//
// R, the tile rows, comes from the "small tile" rule on the second most minor *physical*
// dimension: 1-2 -> 2, 3-4 -> 4, otherwise 8 (16-bit: 1 -> 4, and the generation's standard rows,
// 16 on tpu-v6e/v7x); then R = max(R, p) so the packing tile (p,1) never pads inside a tile.
// Rank 1 uses XLA's linear format T(L), L = 256 up to 256 elements, 512 up to 512, else 1024
// (at least 128*p), followed by (128)(p,1) when packed: f32[100] -> T(256), f32[1280] ->
// T(1024), bf16[128] -> T(256)(128)(2,1). Rank 0 is T(256*p), then (p,1) when packed:
// f32[] -> T(256) (1 KiB), bf16[] -> T(512)(2,1).
#pragma once

#include <cstdint>
#include <span>

#include "tessera/element_type.h"
#include "tessera/tpu/target_profile.h"

namespace tessera::tpu {

// The tile rows of the small tile rule for a second most minor dimension of `size`:
// tpu_tile_rows(1) == 2, tpu_tile_rows(4) == 4, tpu_tile_rows(5) == 8, tpu_tile_rows(0) == 8.
int64_t tpu_tile_rows(int64_t second_minor_size);

// The rank-1 linear tile length for `elements` values: 256, 512 or 1024 (rank-1 rule above).
int64_t tpu_linear_tile(int64_t elements);

// Bits one element of `type` occupies on a TPU of this era: tpu_stored_bits(kBF16, ...) == 16,
// tpu_stored_bits(kPred, kFourBytes) == 32 (8 with kOneByte, 1 with kOneBit),
// tpu_stored_bits(kS4, ...) == 4. kTargetDefault is read as kFourBytes here.
int tpu_stored_bits(ElementType type, PredStorage pred);

// The era-2020 tiles for `type` with physical dims `physical_order_dims` (most major first) on
// `generation`, pred stored as `pred` (kTargetDefault: the generation's pred_2020).
// Example: tiles_2020(kBF16, {7, 3, 256}, Generation::kV3, kTargetDefault) -> (4,128)(2,1).
TileChoice tiles_2020(ElementType type, std::span<const int64_t> physical_order_dims,
                      Generation generation, PredStorage pred);

}  // namespace tessera::tpu
