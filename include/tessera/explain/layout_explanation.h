// `tessera explain SHAPE`: what a layout costs, why, and what would cost less.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/explain/layout_suggestions.h"
#include "tessera/explain/padding_breakdown.h"
#include "tessera/explain/program_fixes.h"
#include "tessera/tpu/target_profile.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::explain {

struct ExplainOptions {
  tpu::TpuTarget target = {};  // none by default: the layout as written, in the current era
  std::size_t max_suggestions = 10;
  bool target_is_default = false;  // the text then says how to get the literal layout
  ShardSplit split = {};  // when the shape is one device's shard: the global dims and shard counts
};

struct LayoutExplanation {
  std::string input;           // the shape as the user wrote it
  tpu::TpuTarget target = {};  // the target the layout was explained for (with its era)
  std::string tile_rule;       // how the tiles were chosen (empty without a target)
  // When the compiler orders the dims of the device array otherwise than written: the written
  // order's layout and size (TileChoice::reordered).
  std::string written_order_layout;
  int64_t written_order_bytes = 0;
  bool target_is_default = false;
  xla::TiledLayout layout;     // the layout explained (with the target's tiles when chosen)
  int64_t logical_bytes = 0;   // bytes of information: elements x the type's bits, rounded up
  int64_t unpadded_bytes = 0;  // XLA's "Unpadded size" (xla_sizes.h): pred counts 1 byte
  std::vector<PaddingSource> padding;
  std::vector<LayoutSuggestion> suggestions;
  // Changes to the program, best first. On a TPU in era 2026, every kind of device_rewrites.h
  // (reshape, reorder = jnp.transpose, pad, storage = jnp.packbits), each sized as the compiler
  // lays out the new array; otherwise the kinds the suggestions cannot express, reshape and pad
  // (program_fixes.h), so nothing is said twice.
  std::vector<ProgramFix> fixes;
  std::string suggestion_search;  // suggestion_search_note: what the bounded search left out
};

// Parses, applies the target profile (only to a shape written without tiles or E(n); a shape
// written without a layout is a device array, ordered as the era's compiler orders it), and
// explains. Throws tessera::Error for malformed shapes.
// Example: explain_layout("s32[2048,1,128,128,4]{4,3,2,1,0}", {parse_tpu_target("tpu")}) -> layout
//   s32[2048,1,128,128,4]{4,3,2,1,0:T(8,128)}, logical 512 MiB, size 16 GiB, padding 31/32, one
//   padding source "dim 4: 4 -> 128 ... x32", first suggestion a minor_to_major without padding.
//   Without the "{4,3,2,1,0}" the compiler stores it {3,4,2,1,0:T(4,128)} (512 MiB) and
//   written_order_layout says what the written order would take.
LayoutExplanation explain_layout(std::string_view shape_text, const ExplainOptions& options);

// `tessera explain SHAPE --json`: one object, whose keys and their meaning are written once, in
// docs/reference/json/explain.schema.json ("a shape"; tests validate the CLI's output against it).
// written_order is {layout, size_bytes} when the compiler reorders the dims, else null.
// Suggestions and fixes best first, equivalent layouts grouped under one (suggestion_groups.h).
nlohmann::ordered_json explanation_json(const LayoutExplanation& explanation);

// The same for people: sizes, where the padding comes from, the steps, the suggestions.
std::string explanation_text(const LayoutExplanation& explanation);

// The line under a suggestion that names its equivalent alternatives (suggestion_groups.h):
// "or 59 equivalent layouts of the same size: A, B, ... (--json lists all)"; "" when none.
std::string alternatives_text(const std::vector<std::string>& alternatives,
                              std::string_view indent);

// "512 MiB", "96 B", "1.5 KiB": sizes the way people read them.
std::string human_bytes(int64_t bytes);

// The embedded default of `tessera explain` without arguments: the spec's Figure 1 example, a
// device array whose dims the compiler reorders (f32[1024,3]), and a padding-heavy intermediate,
// s32[2048,1,128,128,4]{4,3,2,1,0} (why does it take 32x its size?).
struct DefaultExample {
  std::string_view shape;
  std::string_view target;  // "tpu" or "none"
  std::string_view question;
};
std::vector<DefaultExample> default_examples();

}  // namespace tessera::explain
