#include "tessera/explain/pad_fixes.h"

#include <fmt/format.h>

#include <array>
#include <cstddef>
#include <string>

#include "tessera/checked_arithmetic.h"
#include "tessera/error.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::explain {
namespace {

// 8 sublanes and 128 lanes: the TPU tile T(8,128) (docs/design/tiled-layouts.md, "Formats in
// formats"), the multiples people round to; and 2, because a 16-bit second minor dim of 1 takes
// 4 rows on tpu-v2..v5p but a dim of 2 only 2 (tpu/profile_2020.h).
constexpr std::array<int64_t, 3> kGranules = {2, 8, 128};
// Each candidate lays out every reshape of the padded array, O(rank^2); above this rank no pad is
// tried, so a hostile shape of a thousand dims costs what it did before pads existed.
constexpr std::size_t kMaxRankForPads = 8;

// "jnp.pad(x, ((0, 24), (0, 0)))": `amount` more elements at the end of dim k.
std::string jnp_pad(std::size_t rank, std::size_t k, int64_t amount) {
  std::vector<std::string> widths(rank, "(0, 0)");
  widths[k] = fmt::format("(0, {})", amount);
  if (rank == 1) return fmt::format("jnp.pad(x, ({},))", widths[0]);
  return fmt::format("jnp.pad(x, ({}))", fmt::join(widths, ", "));
}

// The best reshape of `shape` with dim k padded to n, or nothing when none is below beat_bytes.
std::vector<ProgramFix> padded_reshape(const xla::Shape& shape, std::size_t k, int64_t n,
                                       const tpu::TpuTarget& target, const ShardSplit& split,
                                       int64_t beat_bytes) {
  xla::Shape padded = shape;
  padded.dimensions[k] = n;
  // The pad alone (reshape ""; only the 16-bit quirk above makes it smaller) comes first, so it
  // wins a tie with a reshape: the shorter change.
  const xla::Shape tiled = with_target_tiles(padded, target);
  std::vector<ProgramFix> reshapes = {
      {"", xla::print_shape(tiled), xla::TiledLayout(tiled).size_bytes(), 0, "", {}}};
  for (ProgramFix& r : reshape_fixes(padded, target)) reshapes.push_back(std::move(r));
  const ProgramFix* best = nullptr;
  for (const ProgramFix& r : reshapes) {
    if (r.size_bytes < beat_bytes && (!best || r.size_bytes < best->size_bytes)) best = &r;
  }
  if (!best) return {};
  const std::string reshape =
      best->kind.empty()
          ? ""
          : fmt::format("x.reshape{}", python_tuple(xla::parse_shape(best->layout).dimensions));
  std::string change;
  if (is_sharded(split)) {
    // Even shards of n: the pad is global, the reshape is of each device's shard (a global
    // reshape would move elements between devices).
    const int64_t global = checked_multiply(n, split.shards[k], "padded dimension");
    change = fmt::format("{} (every shard {} along dim {})",
                         jnp_pad(shape.dimensions.size(), k, global - split.global_dims[k]), n, k);
    if (!reshape.empty()) change += "; then per shard, e.g. in shard_map: " + reshape;
  } else {
    change = jnp_pad(shape.dimensions.size(), k, n - shape.dimensions[k]);
    if (!reshape.empty()) change += reshape.substr(1);  // ".reshape(...)"
  }
  return {{"pad", best->layout, best->size_bytes, 0, std::move(change), {}}};
}

}  // namespace

std::vector<ProgramFix> pad_fixes(const xla::Shape& shape, const tpu::TpuTarget& target,
                                  const ShardSplit& split, int64_t beat_bytes) {
  std::vector<ProgramFix> fixes;
  if (shape.dimensions.empty() || shape.dimensions.size() > kMaxRankForPads ||
      shape.layout.tiles.size() > 3) {
    return fixes;
  }
  // Most minor first: of two pads of one size, the one nearer the tiles (often without a
  // reshape) is the suggestion and the other its alternative.
  for (int64_t dim : shape.layout.minor_to_major) {
    const auto k = static_cast<std::size_t>(dim);
    int64_t previous = shape.dimensions[k];
    for (int64_t granule : kGranules) {
      try {
        const int64_t n = round_up(shape.dimensions[k], granule, "padded dimension");
        if (n == previous) continue;
        previous = n;
        for (ProgramFix& fix : padded_reshape(shape, k, n, target, split, beat_bytes)) {
          fixes.push_back(std::move(fix));
        }
      } catch (const Error&) {
        // A pad whose size overflows int64 is no fix; the others still are.
      }
    }
  }
  return fixes;
}

}  // namespace tessera::explain
