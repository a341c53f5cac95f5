// The layout today's TPU compiler gives a device array (XLA era 2026: libtpu 0.0.42.1), found by
// compiling arrays deviceless for every generation (tools/tpu_oracle) and written down as data.
// Nothing of libtpu is copied; every rule is an observation with the sweep that shows it
// (tests/fixtures/tpu_oracle/, checked by tests/tpu/compiler_model_test.cpp).
//
// Three rules decide the layout of an array of type t and dims d on generation g:
//
// 1. Storage. 4- and 2-bit types take their bits, E(4)/E(2), on tpu-v4 and later, and a byte on
//    tpu-v2/v3 (no E); pred takes a byte everywhere. Narrower than 32 bits packs p = 32/bits
//    stored values per word.
// 2. Tiles, for one order of the dims (physical dims P, most major first):
//      rank 0   T(W)               W = 128 words x p (tpu-v2/v3: 256 x p)
//      rank 1   T(L)(128)(p,1)     L = the first of W, 256, 512, 1024 that is >= W and holds P,
//                                  else 1024 (2-bit: 2048); (128)(p,1) only when p > 1
//      rank 2+  T(R,128)(p,1)      R from the second most minor dim s and the type's own bits:
//                                  small s gets few rows; on tpu-v4 and later whole tiles of
//                                  8 x p rows when they divide s (8-bit: 32, 4-bit: 64, 2-bit:
//                                  128); 2-bit types get 16 rows (on tpu-v2/v3 too)
// 3. Order. Of all minor_to_major orders, the compiler takes the one whose tiled layout needs
//    the fewest bytes; a tie goes to the lexicographically greatest minor_to_major, so the
//    descending (written) order wins every tie. Arrays with no elements keep {n-1,...,0} untiled.
//
// Examples (tpu-v5e): f32[1024,3] -> f32[1024,3]{0,1:T(4,128)} (16 KiB; in the written order,
//   {1,0:T(8,128)}, 3 is padded to 128: 512 KiB); s8[64,1000] -> {1,0:T(32,128)(4,1)}; f32[7] ->
//   {0:T(128)}; bf16[] -> {:T(256)}; s4[3,5] -> {1,0:T(8,128)(8,1)E(4)}; f32[0,5] -> {1,0}.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "tessera/element_type.h"
#include "tessera/tpu/target_profile.h"
#include "tessera/xla/shape.h"

namespace tessera::tpu {

// The functions below read `target`'s generation and pred storage (its era is this model's,
// 2026, whatever it says) and throw Error(kInvalid) for a target without a generation.

// The tiles the compiler gives `type` laid out with physical dims `physical_order_dims` (most
// major first). For a type the model has no observation of (libtpu_models false) the era-2020
// tiles, and the rule says so. The rule text is left empty without `with_rule` (the words cost
// more than the tiles).
// Example: libtpu_tiles(kS8, {64, 1000}, {tpu-v5e}) -> (32,128)(4,1), "8-bit, second minor 64,
//   a multiple of 32 -> 32 rows".
TileChoice libtpu_tiles(ElementType type, std::span<const int64_t> physical_order_dims,
                        const TpuTarget& target, bool with_rule = true);

// The minor_to_major the compiler gives a device array of `dims` (rule 3).
// Example: libtpu_minor_to_major(kF32, {1024, 3}, {tpu-v5e}) == {0, 1}.
std::vector<int64_t> libtpu_minor_to_major(ElementType type, std::span<const int64_t> dims,
                                           const TpuTarget& target);

// The whole device layout: libtpu_minor_to_major, then libtpu_tiles for that order.
xla::Shape libtpu_device_shape(ElementType type, std::span<const int64_t> dims,
                               const TpuTarget& target, TileChoice* choice = nullptr);

// The bytes of libtpu_device_shape's layout, TiledLayout(libtpu_device_shape(...)).size_bytes(),
// computed without building the layout: the advice (device_rewrites.h) sizes dozens of new arrays
// per array explained. With kAsWritten, the bytes of the dims kept in the written (descending)
// order with the compiler's tiles for it. Throws Error(kOverflow) when the size does not fit.
// Example: libtpu_device_bytes(kF32, {1024, 3}, {tpu-v5e}) == 16384 (kAsWritten: 524288).
int64_t libtpu_device_bytes(ElementType type, std::span<const int64_t> dims,
                            const TpuTarget& target,
                            DimensionOrder order = DimensionOrder::kCompilerChooses);

// False for the types libtpu 0.0.42.1 does not compile as device arrays (s2 and u2 abort it; s1
// and u1 have no JAX type): those keep the 2020 profile's tiles and their written order.
bool libtpu_compiles(ElementType type);

// True when the model has an observation for `type` stored as `target` stores it: the type
// compiles and its stored packing has rows (pred in 1 bit has none).
bool libtpu_models(ElementType type, const TpuTarget& target);

// The model's rules, one line each with the sweep that shows it, for --list-targets and docs.
struct CompilerRule {
  std::string_view generations;  // "tpu-v4 and later", "every generation"
  std::string_view rule;
  std::string_view evidence;  // the fixture and sweep
};
std::span<const CompilerRule> libtpu_rules();

}  // namespace tessera::tpu
