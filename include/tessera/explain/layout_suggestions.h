// Other layouts of the same logical array, ranked by the bytes they save.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tessera/tpu/target_profile.h"
#include "tessera/xla/shape.h"

namespace tessera::explain {

struct LayoutSuggestion {
  std::string kind;    // "reorder" (another minor_to_major) or "storage" (pred storage)
  std::string layout;  // canonical shape with the suggested layout
  int64_t size_bytes = 0;
  int64_t bytes_saved = 0;  // current size - size_bytes: 0 (the same size) or more
  double padding_fraction = 0.0;
  std::string change;  // "dim 3 minor, dim 2 second minor" / "pred stored in 1 bit"
  std::vector<std::string> alternatives;  // equivalent layouts: same kind, same size
};

// A suggestion as the JSON reports write it: {kind, layout, size_bytes, bytes_saved,
// padding_fraction, change, alternatives}.
nlohmann::ordered_json layout_suggestion_json(const LayoutSuggestion& suggestion);

// Candidate layouts for `shape` (which is laid out as given, e.g. after apply_target):
//  - every other minor_to_major order (ranks up to 5: all orders; higher ranks: every choice of
//    the two most minor dims, the rest kept in their order, since the TPU's 2-D tiles only see
//    those two), with tiles re-chosen by `target` for each (a target without a generation keeps the
//    shape's own tiles);
//  - with a TPU target: the profile's own choice for the shape's order when the user wrote other
//    tiles, and for pred the other storages (era 2020: 4 bytes, 1 byte, the spec's 1-bit tiling
//    (32,128)(32,1)E(1); era 2026 only the byte today's TPUs store it in).
// Only layouts of at most the current size are suggested. Sorted best first: fewest bytes, then the
// change that leaves the most major dims in place (only the minor end of minor_to_major differs),
// then by text. Equivalent layouts (same kind, same size) are one suggestion listing the others in
// `alternatives` (suggestion_groups.h); at most `limit` suggestions. Example:
// s32[2048,1,128,128,4]{4,3,2,1,0:T(8,128)} on the TPU (32x padded) -> first
//   suggestion s32[2048,1,128,128,4]{3,4,2,1,0:T(4,128)}, 512 MiB, saving 15.5 GiB, with the 59
//   other orders of 512 MiB as its alternatives.
std::vector<LayoutSuggestion> suggest_layouts(const xla::Shape& shape, int64_t current_size_bytes,
                                              const tpu::TpuTarget& target, std::size_t limit);

// Above rank 5 the order search is bounded: only dims larger than 1 move, and at most 64 choices
// of the two minor dims are tried (most minor first). When that left something out, says so:
//   f32[1,...,1] of rank 400 -> "tried 0 of 0 choices of the two minor dims among the 0 dims
//   larger than 1; the 400 size-1 dims stay in place"; "" when every candidate was tried.
std::string suggestion_search_note(const xla::Shape& shape);

}  // namespace tessera::explain
