// A target profile: the layout an accelerator gives a shape written without tiles.
//
// The TPU profile reproduces one compiler era (xla_era.h), chosen here and nowhere else
// (choose_tpu_tiles). Era 2026, the default, is today's libtpu as observed by tools/tpu_oracle
// (compiler_model.h: the dims' order and the tiles). Era 2020 reproduces the public 2019-2021
// reports (profile_2020.h: its rules, with the per-generation rows of generations.h).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/element_type.h"
#include "tessera/tpu/target.h"
#include "tessera/xla/shape.h"

namespace tessera::tpu {

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
// compiler_model.h); `f32[1024,3]{1,0}` names its order, which is kept.
enum class DimensionOrder { kAsWritten, kCompilerChooses };

// The TPU tiles for `type` laid out with physical dims `physical_order_dims` (most major first)
// on `target`'s generation as the compiler of its era chooses them: the one place the era is
// dispatched (2026: libtpu_tiles, for the types it compiles; 2020: tiles_2020). Throws
// Error(kInvalid) for a target without a generation. The rule's words only `with_rule`.
// Example: choose_tpu_tiles(kBF16, {7, 3, 256}, {tpu-v3, era 2020}) -> tiles (4,128)(2,1),
//   element bits 0.
TileChoice choose_tpu_tiles(ElementType type, std::span<const int64_t> physical_order_dims,
                            const TpuTarget& target, bool with_rule = true);

// `shape` with the target's tiles applied, unless the target has no generation or the layout
// already names tiles or E(n) (then it is returned unchanged and `choice`, if given, says so).
// With kCompilerChooses and era 2026, the dims are first ordered as the compiler orders a device
// array (choice->reordered says when that differs from the shape's own order).
// Example: apply_target(parse_shape("s32[2048,1,128,128,4]"), {tpu-v3, era 2020}) ->
//   s32[2048,1,128,128,4]{4,3,2,1,0:T(8,128)}; apply_target(parse_shape("f32[1024,3]"),
//   {tpu-v5e}, nullptr, kCompilerChooses) -> f32[1024,3]{0,1:T(4,128)}.
xla::Shape apply_target(xla::Shape shape, const TpuTarget& target, TileChoice* choice = nullptr,
                        DimensionOrder order = DimensionOrder::kAsWritten);

// The shape `text` names, laid out for `target` as every front end does it: tiles for a shape
// written without them, and for a shape written without any layout (a device array) the order
// the era's compiler gives it. A target without a generation keeps the text's layout.
// Example: layout_for_target("f32[1024,3]", parse_tpu_target("tpu")) ->
//   f32[1024,3]{0,1:T(4,128)}; with "f32[1024,3]{1,0}" -> f32[1024,3]{1,0:T(8,128)}.
xla::Shape layout_for_target(std::string_view text, const TpuTarget& target,
                             TileChoice* choice = nullptr);

// True when the layout names no tiles and no E(n): the shape a target would tile.
bool is_untiled(const xla::Shape& shape);

// The target name `explain` and `draw` use when none is named: "tpu" for a shape written
// without tiles (what a TPU user needs without knowing a flag), "none" for one written with
// tiles.
std::string_view explain_default_target(const xla::Shape& shape);

}  // namespace tessera::tpu
