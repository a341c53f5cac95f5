// `tessera diff A B`: two layouts of one array side by side. Which elements stay and
// which move (moved_elements.h: exact, in closed form), a summary by tile, the bytes and padding
// of each side, what differs in the notation, the relayout plan that turns A into B with its
// kernels, and what that costs on this host.
//
//   diff_layouts("f32[4,256]{1,0}", "f32[4,256]{1,0:T(8,128)}", {})
//     -> 1024 elements, 896 moved, 128 stayed; a 4096 bytes, b 8192 bytes (4096 of padding);
//        differences: tiles none -> T(8,128); plan "copy ... runs of 512 B" ...
//
// A side is an XLA shape with layout, an NPU operand (npu:DEVICE:N,C,H,W:DTYPE:ADDRESS...,
// layout_operand.h), or a JAX Layout/Format repr, which takes the array from the other side (or
// from DiffOptions::shape).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/relayout/layout_operand.h"
#include "tessera/relayout/moved_elements.h"
#include "tessera/relayout/relayout_cost.h"
#include "tessera/tpu/target_profile.h"
#include "tessera/tpu/xla_era.h"

namespace tessera::explain {

// Layouts without a common refinement (tiles that split a dimension at sizes that do not divide
// each other) have no closed form for their moved elements: they are compared one by one, up to
// this many elements; larger arrays are refused in words that say so, in bounded time.
inline constexpr int64_t kDiffWalkElements = int64_t{1} << 24;

struct DiffOptions {
  // Tiles for an XLA side written without tiles, and for one written without any layout the
  // order the compiler gives a device array (layout_for_target; target none: the layouts as
  // written).
  tpu::TpuTarget target = {};  // none by default: layouts as written
  // The array ("f32[8,256]") for JAX reprs when no side is an XLA shape or NPU operand.
  std::string shape = {};
  bool measure = false;      // run the plan on this host instead of estimating its time
  int threads = 0;           // the plan's threads (0: all cores)
  bool tile_summary = true;  // false: skip the summary by tile (it visits every element)
  // Layouts without a common refinement have their moved elements counted one by one up to
  // this many elements; more is refused (count_moved_elements: Error(kUnsupported)).
  int64_t walk_limit = kDiffWalkElements;
};

struct DiffSide {
  std::string input;   // as written
  std::string layout;  // XLA's canonical text, or the NPU operand as written
  std::string family;  // "xla" or "npu"
  std::string note;    // how a JAX repr was read ("" otherwise)
  relayout::LayoutOperand operand;
  int element_bits = 0;
  int64_t size_bytes = 0;     // the buffer: XLA's size with padding; an NPU side's whole image
  int64_t data_bytes = 0;     // the elements' own bits, rounded up to bytes
  int64_t padding_bytes = 0;  // XLA: size - data; NPU: wasted bytes of its band (footprint.h)
  std::string tile;           // the first tile level, "(8,128)"; "" when untiled
};

// The array cut into blocks of a tile (A's first tile level, else B's, else one row of the last
// dimension), each classified by its elements.
struct TileSummary {
  std::string side;            // "a" or "b": whose tile ("" for rows)
  std::string tile;            // "(8,128)" or "row"
  std::vector<int64_t> block;  // the block's extent per logical dimension
  int64_t blocks = 0;
  int64_t unchanged = 0;  // every element stays
  int64_t partly_moved = 0;
  int64_t moved = 0;                                     // every element moves
  std::vector<std::vector<int64_t>> first_partly_moved;  // block coordinates, at most 8
};

// Arrays up to this many elements get a tile summary (it visits every element).
inline constexpr int64_t kTileSummaryElements = int64_t{1} << 22;

struct LayoutDifference {
  std::string what;  // "order", "tiles", "element_bits", "memory_space", "tail_alignment",
                     // "family"
  std::string a;
  std::string b;
  std::string text;  // what the change means
};

struct LayoutDiff {
  DiffSide a;
  DiffSide b;
  relayout::MovedElements moved;
  std::vector<LayoutDifference> differences;
  std::optional<TileSummary> tiles;
  std::string tiles_note;  // why there is no tile summary ("" when there is one)
  int64_t plan_pieces = 0;
  int plan_threads = 0;
  std::vector<std::string> kernels;  // RelayoutPlan::describe(), one line each
  relayout::RelayoutCost cost;
};

// Throws tessera::Error for a side that does not parse, for two sides that are not the same
// array (element type and dims), and as count_moved_elements does.
LayoutDiff diff_layouts(std::string_view a, std::string_view b, const DiffOptions& options);

// The logical block one tile of an XLA side covers, per dimension (f32[3,5]{1,0:T(2,2)}: {2,2};
// {0,1:T(8,128)} of f32[300,5]: {128,5}); empty for an untiled, NPU or '*'-tiled side.
std::vector<int64_t> tile_block(const DiffSide& side);

// The differences in notation between two XLA shapes of one array (order, tiles, E(n), S(n),
// L(n)); empty when they are written alike.
std::vector<LayoutDifference> notation_differences(const xla::Shape& a, const xla::Shape& b);

// One object with stable keys: elements, moved_elements, stayed_elements, moved_fraction,
// counting (how the count was made), a and b {layout, input, family, element_bits, size_bytes,
// data_bytes, padding_bytes, tile, note}, size_change_bytes (b - a), differences [{what, a, b,
// text}], tiles {side, tile, block, blocks, unchanged, partly_moved, moved, first_partly_moved}
// or null with tiles_note, plan {pieces, threads, kernels}, cost {bytes_read, bytes_written,
// bytes_moved, seconds, copy_gb_per_second, measured, basis}.
nlohmann::ordered_json diff_json(const LayoutDiff& diff);

// The same for people.
std::string diff_text(const LayoutDiff& diff);

// [{what, a, b, text}], the `differences` of diff_json.
nlohmann::ordered_json differences_json(const std::vector<LayoutDifference>& differences);

}  // namespace tessera::explain
