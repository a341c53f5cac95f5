// A target profile: the layout an accelerator gives a shape written without tiles.
//
// The TPU profile reproduces one compiler era (xla_era.h). Era 2026, the default, is today's
// libtpu as observed by tools/tpu_oracle (tpu_compiler_model.h: the dims' order and the tiles).
// Era 2020 reproduces the public 2019-2021 reports with the rules below, per-generation rows in
// tpu_generations.h, each beside the public XLA output it rests on; it keeps the written order:
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
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/element_type.h"
#include "tessera/explain/xla_era.h"
#include "tessera/xla/shape.h"

namespace tessera::explain {

// kNone keeps a layout as written; the others are TPU generations. kTpu, the name "tpu", stands
// for the era's usual generation (resolve_target): tpu-v5e today, tpu-v3 in the 2020 era, whose
// public reports came mostly from v2/v3 pods.
enum class Target {
  kNone,
  kTpuV2,
  kTpuV3,
  kTpuV4,
  kTpuV5e,
  kTpuV5p,
  kTpuV6e,
  kTpuV7x,
  kTpu,
};

// kTpu -> the era's generation (tpu-v5e for 2026, tpu-v3 for 2020); every other target as is.
Target resolve_target(Target target, XlaEra era);

// How a TPU stores pred: 4 bytes (E(32)), 1 byte packed like s8, or the spec's proposed 1 bit.
// kTargetDefault: as the target generation does (tpu-v2/v3: 4 bytes; tpu-v4 and later: 1 byte).
enum class PredStorage { kFourBytes, kOneBit, kOneByte, kTargetDefault };

// "tpu" -> kTpu, "tpu-v5e" -> kTpuV5e, "none" -> kNone; throws Error(kInvalid) listing the
// known targets otherwise.
Target parse_target(std::string_view name);
// The generation's own name: target_name(Target::kTpuV3) == "tpu-v3"; "tpu" for kTpu (resolve
// it first to print the generation); "none" for kNone.
std::string_view target_name(Target target);
bool is_tpu(Target target);

// The target a front end uses: the name it was given, else the environment variable
// TESSERA_TARGET (when set and not empty), else `fallback`. Throws like parse_target.
Target target_or_environment(std::optional<std::string_view> given, Target fallback);
// True when TESSERA_TARGET is set and not empty.
bool environment_names_target();

// --pred-bits 32 -> kFourBytes, 8 -> kOneByte, 1 -> kOneBit, 0 -> kTargetDefault; other values
// throw Error(kInvalid).
PredStorage parse_pred_bits(int bits);

// What a profile chose for one shape, and why, in words.
struct TileChoice {
  std::vector<xla::Tile> tiles;
  int64_t element_size_in_bits = 0;  // E(n), 0 when the type's default storage is kept
  std::string rule;                  // "16-bit, packing (2,1); second minor 3 -> 4 rows"
  // When the compiler chose another dimension order than the written one (apply_target with
  // DimensionOrder::kCompilerChooses): the written minor_to_major and what it would take.
  bool reordered = false;
  std::vector<int64_t> written_minor_to_major;
  int64_t written_order_bytes = 0;
};

// Who orders the dims of a shape written without tiles. A shape typed without a layout
// (`f32[1024,3]`) is a device array, whose order the compiler chooses (era 2026:
// tpu_compiler_model.h); `f32[1024,3]{1,0}` names its order, which is kept.
enum class DimensionOrder { kAsWritten, kCompilerChooses };

// The tile rows of the small tile rule for a second most minor dimension of `size`:
// tpu_tile_rows(1) == 2, tpu_tile_rows(4) == 4, tpu_tile_rows(5) == 8, tpu_tile_rows(0) == 8.
int64_t tpu_tile_rows(int64_t second_minor_size);

// The rank-1 linear tile length for `elements` values: 256, 512 or 1024 (rank-1 rule above).
int64_t tpu_linear_tile(int64_t elements);

// Bits one element of `type` occupies on a TPU: tpu_stored_bits(kBF16) == 16,
// tpu_stored_bits(kPred) == 32 (8 with kOneByte, 1 with kOneBit), tpu_stored_bits(kS4) == 4.
// kTargetDefault is read as kFourBytes here (use the overload with a target).
int tpu_stored_bits(ElementType type, PredStorage pred);

// The TPU tiles for `type` laid out with physical dims `physical_order_dims` (most major first),
// under generation `target` (kNone and kTpu are read as the era's generation) as the compiler of
// `era` chooses them (2026: libtpu_tiles; 2020: the rules in this header's table).
// Example: choose_tpu_tiles(kBF16, {7, 3, 256}, kTargetDefault, kTpuV3, k2020) -> tiles
//   (4,128)(2,1), element bits 0.
TileChoice choose_tpu_tiles(ElementType type, std::span<const int64_t> physical_order_dims,
                            PredStorage pred = PredStorage::kTargetDefault,
                            Target target = Target::kTpu, XlaEra era = kCurrentXlaEra);

// `shape` with the target's tiles applied, unless the layout already names tiles or E(n) (then
// it is returned unchanged and `choice`, if given, says so). With kCompilerChooses and era 2026,
// the dims are first ordered as the compiler orders a device array (choice->reordered says when
// that differs from the shape's own order).
// Example: apply_target(parse_shape("s32[2048,1,128,128,4]"), kTpuV3, ..., k2020) ->
//   s32[2048,1,128,128,4]{4,3,2,1,0:T(8,128)}; apply_target(parse_shape("f32[1024,3]"), kTpuV5e,
//   kTargetDefault, nullptr, k2026, kCompilerChooses) -> f32[1024,3]{0,1:T(4,128)}.
xla::Shape apply_target(xla::Shape shape, Target target,
                        PredStorage pred = PredStorage::kTargetDefault,
                        TileChoice* choice = nullptr, XlaEra era = kCurrentXlaEra,
                        DimensionOrder order = DimensionOrder::kAsWritten);

// The shape `text` names, laid out for `target` as every front end does it: tiles for a shape
// written without them, and for a shape written without any layout (a device array) the order
// the era's compiler gives it. kTpu is resolved for the era; kNone keeps the text's layout.
// Example: layout_for_target("f32[1024,3]", kTpu) -> f32[1024,3]{0,1:T(4,128)};
//   layout_for_target("f32[1024,3]{1,0}", kTpu) -> f32[1024,3]{1,0:T(8,128)}.
xla::Shape layout_for_target(std::string_view text, Target target,
                             PredStorage pred = PredStorage::kTargetDefault,
                             XlaEra era = kCurrentXlaEra, TileChoice* choice = nullptr);

// True when the layout names no tiles and no E(n): the shape a target would tile.
bool is_untiled(const xla::Shape& shape);

// The target `explain` and `draw` use when none is named: kTpu for a shape written without
// tiles (what a TPU user needs without knowing a flag), kNone for one written with tiles.
Target explain_default_target(const xla::Shape& shape);

}  // namespace tessera::explain
