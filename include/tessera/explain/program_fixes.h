// Fixes a person can apply to their program, not permutations of one idea.
//
// Kinds:
//   reshape  merge a small minor dim into its neighbour, or give the array 128 lanes:
//            s32[2048,1,128,128,4]{4,3,2,1,0:T(8,128)} (16 GiB) -> s32[2048,1,128,512], 512 MiB,
//            change "x.reshape(2048, 1, 128, 512)", saving 15.5 GiB;
//   reorder  another minor_to_major, reached by transposing where the array is made:
//            change "jnp.transpose(x, (0, 1, 2, 4, 3))" (JAX's axes are major-to-minor, so the
//            permutation is XLA's minor_to_major reversed);
//   pad      round one dim up to a multiple of 8 or 128 so that a reshape becomes possible that
//            beats every fix without padding (pad_fixes.h): f32[10,100,3] (520 KiB) ->
//            "jnp.pad(x, ((0, 0), (0, 28), (0, 0))).reshape(30, 128)", 16 KiB;
//   storage  a narrower element storage the target can hold (never 1-bit pred on today's TPUs).
// Equivalent alternatives (same kind, same size) are one fix listing the others in
// `alternatives` (suggestion_groups.h); fixes that save nothing are dropped. Ranked by size, then
// reshape, reorder, pad, storage (a reshape changes one line of a program; a transpose moves
// data; a pad adds data).
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tessera/tpu/target_profile.h"
#include "tessera/xla/shape.h"

namespace tessera::explain {

struct ProgramFix {
  std::string kind;    // "reshape", "reorder", "pad", "storage"
  std::string layout;  // the new shape with its layout (target tiles applied)
  int64_t size_bytes = 0;
  int64_t bytes_saved = 0;
  std::string change;                     // in the user's terms
  std::vector<std::string> alternatives;  // equivalent layouts: same kind, same size
};

// How the explained array is split over devices: the global dims and the shards per dim (XLA
// pads uneven shards up, so each device holds ceil(global / shards)). Empty: the whole array.
struct ShardSplit {
  std::vector<int64_t> global_dims;
  std::vector<int64_t> shards;
};

// True when some dim is split over more than one device: reshapes are then of each shard.
bool is_sharded(const ShardSplit& split);

// `shape` is laid out as given (after apply_target; the per-device shard when `split` is set);
// `size_bytes` is its current size.
std::vector<ProgramFix> program_fixes(const xla::Shape& shape, int64_t size_bytes,
                                      const tpu::TpuTarget& target, std::size_t limit,
                                      const ShardSplit& split = {});

// The reshapes of `shape` that move no data, with the target's tiles (bytes_saved left 0):
// merging a dim into its major neighbour when they are adjacent in minor_to_major, and on the
// TPU the whole array as rows of 128 lanes when its element count is a multiple of 128.
// s32[2048,1,128,128,4] -> s32[2048,1,128,512] ("x.reshape(2048, 1, 128, 512)"), ...
std::vector<ProgramFix> reshape_fixes(const xla::Shape& shape, const tpu::TpuTarget& target);

// `shape` with the tiles `target` chooses for its dims and order (a target without a generation
// keeps its own): what XLA would give the array after the program changed it.
xla::Shape with_target_tiles(xla::Shape shape, const tpu::TpuTarget& target);

// "(2048, 1, 128, 512)", "(7,)": a Python tuple.
std::string python_tuple(const std::vector<int64_t>& values);

// Why a non-row-major layout exists, in the user's terms, or "" for a row-major one:
// {1,2,0} -> "minor_to_major {1,2,0} is what jnp.transpose(x, (0, 2, 1)) of a row-major array
// gives".
std::string transpose_cause(const xla::Shape& shape);

// The members of a fix in the JSON reports, in their order: the one list of its keys, which every
// writer of a fix follows (program_fix_json; the input report's streaming writer). `member` is
// called as member(key, value) for kind, layout, size_bytes, bytes_saved, change, alternatives.
template <class Member>
void for_each_fix_member(const ProgramFix& fix, Member&& member) {
  member("kind", fix.kind);
  member("layout", fix.layout);
  member("size_bytes", fix.size_bytes);
  member("bytes_saved", fix.bytes_saved);
  member("change", fix.change);
  member("alternatives", fix.alternatives);
}

// {kind, layout, size_bytes, bytes_saved, change, alternatives}, by for_each_fix_member.
nlohmann::ordered_json program_fix_json(const ProgramFix& fix);

}  // namespace tessera::explain
