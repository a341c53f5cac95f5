#include "tessera/explain/program_fixes.h"

#include <fmt/format.h>

#include <algorithm>

#include "tessera/explain/device_rewrites.h"
#include "tessera/explain/layout_suggestions.h"
#include "tessera/explain/pad_fixes.h"
#include "tessera/explain/suggestion_groups.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::explain {
namespace {

int kind_rank(const std::string& kind) {
  if (kind == "reshape") return 0;
  if (kind == "reorder") return 1;
  if (kind == "pad") return 2;
  return 3;
}

// JAX's axes order for a minor_to_major: most major first, i.e. minor_to_major reversed.
std::vector<int64_t> major_to_minor(const std::vector<int64_t>& m2m) {
  return {m2m.rbegin(), m2m.rend()};
}

// Merging dims b and b+1 keeps every element's memory order when b+1 sits right below b in
// minor_to_major; only then is a reshape free of data movement.
void add_merges(const xla::Shape& shape, const tpu::TpuTarget& target,
                std::vector<ProgramFix>& out) {
  const auto& m2m = shape.layout.minor_to_major;
  for (std::size_t k = 0; k + 1 < m2m.size(); ++k) {
    const int64_t minor = m2m[k];
    const int64_t major = m2m[k + 1];
    if (major + 1 != minor) continue;
    xla::Shape merged = shape;
    merged.dimensions[major] *= shape.dimensions[minor];
    merged.dimensions.erase(merged.dimensions.begin() + minor);
    merged.layout.minor_to_major.clear();
    for (int64_t d : m2m) {
      if (d != minor) merged.layout.minor_to_major.push_back(d > minor ? d - 1 : d);
    }
    merged = with_target_tiles(std::move(merged), target);
    out.push_back({"reshape",
                   xla::print_shape(merged),
                   xla::TiledLayout(merged).size_bytes(),
                   0,
                   fmt::format("x.reshape{}", python_tuple(merged.dimensions)),
                   {}});
  }
}

// The whole array as rows of 128 lanes, the TPU tile's width: no dimension is padded when the
// element count divides into full (8,128) tiles.
void add_lanes(const xla::Shape& shape, const tpu::TpuTarget& target,
               std::vector<ProgramFix>& out) {
  constexpr int64_t kLanes = 128;
  int64_t elements = 1;
  for (int64_t d : shape.dimensions) elements *= d;
  if (!target.is_tpu() || shape.rank() < 2 || elements % kLanes != 0) return;
  if (shape.dimensions.back() == kLanes) return;
  xla::Shape lanes = shape;
  lanes.dimensions = {elements / kLanes, kLanes};
  lanes.layout.minor_to_major = {1, 0};
  lanes = with_target_tiles(std::move(lanes), target);
  out.push_back({"reshape",
                 xla::print_shape(lanes),
                 xla::TiledLayout(lanes).size_bytes(),
                 0,
                 fmt::format("x.reshape(-1, {}): rows of {} lanes (reshape back where the shape "
                             "matters)",
                             kLanes, kLanes),
                 {}});
}

}  // namespace

xla::Shape with_target_tiles(xla::Shape shape, const tpu::TpuTarget& target) {
  if (target.is_tpu()) {
    shape.layout.tiles.clear();
    shape.layout.element_size_in_bits = 0;
  }
  return tpu::apply_target(std::move(shape), target);
}

bool is_sharded(const ShardSplit& split) {
  return std::any_of(split.shards.begin(), split.shards.end(), [](int64_t s) { return s > 1; });
}

std::string python_tuple(const std::vector<int64_t>& values) {
  if (values.size() == 1) return fmt::format("({},)", values[0]);
  return fmt::format("({})", fmt::join(values, ", "));
}

std::vector<ProgramFix> reshape_fixes(const xla::Shape& shape, const tpu::TpuTarget& target) {
  std::vector<ProgramFix> out;
  if (!shape.dimensions.empty() && shape.layout.tiles.size() <= 3) {
    add_merges(shape, target, out);
    add_lanes(shape, target, out);
  }
  return out;
}

std::string transpose_cause(const xla::Shape& shape) {
  const auto& m2m = shape.layout.minor_to_major;
  if (std::is_sorted(m2m.rbegin(), m2m.rend())) return "";
  return fmt::format(
      "minor_to_major {{{}}} is what jnp.transpose(x, {}) of a row-major array gives",
      fmt::join(m2m, ","), python_tuple(major_to_minor(m2m)));
}

std::vector<ProgramFix> program_fixes(const xla::Shape& shape, int64_t size_bytes,
                                      const tpu::TpuTarget& target, std::size_t limit,
                                      const ShardSplit& split) {
  if (target.era == tpu::XlaEra::k2026 && target.is_tpu()) {
    return device_rewrites(shape, size_bytes, target, limit, split);
  }
  std::vector<ProgramFix> candidates = reshape_fixes(shape, target);
  for (const LayoutSuggestion& s : suggest_layouts(shape, size_bytes, target, 10000)) {
    if (s.change.rfind("pred stored", 0) == 0) {
      // A storage the profile in use does not hold (1-bit pred on today's TPUs) is never offered.
      if (target.pred == tpu::PredStorage::kOneBit) {
        candidates.push_back({"storage", s.layout, s.size_bytes, 0, s.change, {}});
      }
      continue;
    }
    const xla::Shape other = xla::parse_shape(s.layout);
    // Other tiles in the same order are no transpose: jnp.transpose(x, (0,)) changes nothing.
    if (other.layout.minor_to_major == shape.layout.minor_to_major) continue;
    const auto axes = major_to_minor(other.layout.minor_to_major);
    candidates.push_back(
        {"reorder", s.layout, s.size_bytes, 0,
         fmt::format("jnp.transpose(x, {}) where x is made; XLA then keeps "
                     "minor_to_major {{{}}}",
                     python_tuple(axes), fmt::join(other.layout.minor_to_major, ",")),
         s.alternatives});
  }
  // A pad is worth its extra data only when it beats every fix without one.
  int64_t best_without_pad = size_bytes;
  for (const ProgramFix& c : candidates)
    best_without_pad = std::min(best_without_pad, c.size_bytes);
  for (ProgramFix& pad : pad_fixes(shape, target, split, best_without_pad)) {
    candidates.push_back(std::move(pad));
  }
  for (ProgramFix& c : candidates) {
    c.bytes_saved = size_bytes - c.size_bytes;
    // The array explained is one device's shard: reshaping the global array would move elements
    // between devices, so the reshape is of each shard (pad_fixes.h says the same for its own).
    if (c.kind == "reshape" && is_sharded(split))
      c.change = "per shard, e.g. in shard_map: " + c.change;
  }
  std::stable_sort(candidates.begin(), candidates.end(), [](const auto& a, const auto& b) {
    if (a.size_bytes != b.size_bytes) return a.size_bytes < b.size_bytes;
    return kind_rank(a.kind) < kind_rank(b.kind);
  });
  std::erase_if(candidates, [](const ProgramFix& c) { return c.bytes_saved <= 0; });
  return group_equivalent(std::move(candidates), limit);
}

nlohmann::ordered_json program_fix_json(const ProgramFix& fix) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for_each_fix_member(fix, [&out](const char* key, const auto& value) { out[key] = value; });
  return out;
}

}  // namespace tessera::explain
