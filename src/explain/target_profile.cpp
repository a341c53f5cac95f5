#include "tessera/explain/target_profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "tessera/error.h"
#include "tessera/xla/notation.h"

namespace tessera::explain {
namespace {

// The TPU profile's constants (tiled layout spec, "Examples of tiling formats").
constexpr int64_t kTpuLanes = 128;          // the minor tile entry: one vector register row
constexpr int64_t kTpuDefaultRows = 8;      // "tiling by 8x128 ... 32-bit 8x128 vector registers"
constexpr int kTpuWordBits = 32;            // packing collects narrower values into 32 bits
constexpr int64_t kTpuLinearGranule = 128;  // rank-1 tiles are multiples of 128 elements

// "TPU small tile format": the second most minor size -> tile rows. Extend here (the spec
// announces 6 rows for sizes 5-6 and 9-12).
struct SmallTileRule {
  int64_t max_second_minor;
  int64_t rows;
};
constexpr std::array<SmallTileRule, 2> kSmallTileRules = {{{2, 2}, {4, 4}}};

}  // namespace

Target parse_target(std::string_view name) {
  if (name == "tpu") return Target::kTpu;
  if (name == "none") return Target::kNone;
  throw Error(ErrorKind::kInvalid,
              fmt::format("unknown target '{}'; known targets: tpu, none", name));
}

std::string_view target_name(Target target) {
  return target == Target::kTpu ? "tpu" : "none";
}

int64_t tpu_tile_rows(int64_t second_minor_size) {
  for (const SmallTileRule& rule : kSmallTileRules) {
    if (second_minor_size >= 1 && second_minor_size <= rule.max_second_minor) return rule.rows;
  }
  return kTpuDefaultRows;
}

int tpu_stored_bits(ElementType type, PredStorage pred) {
  if (type == ElementType::kPred) return pred == PredStorage::kOneBit ? 1 : kTpuWordBits;
  // 64-bit and complex types keep their width (a TPU handles them as pairs of 32-bit words,
  // which tiles exactly like 32-bit data); narrower types are packed to 32 bits.
  return bit_width(type);
}

TileChoice choose_tpu_tiles(ElementType type, std::span<const int64_t> physical_order_dims,
                            PredStorage pred) {
  TileChoice choice;
  const int bits = tpu_stored_bits(type, pred);
  const int64_t packing = bits < kTpuWordBits ? kTpuWordBits / bits : 1;
  if (bits != default_storage_bits(type)) choice.element_size_in_bits = bits;
  const std::string packing_text =
      packing > 1 ? fmt::format(", packing ({},1): {} values per 32-bit word", packing, packing)
                  : std::string();
  const std::string type_text =
      fmt::format("{} stored in {} bits{}", element_type_name(type), bits, packing_text);
  if (physical_order_dims.size() < 2) {
    // XLA's linear format for vectors and scalars.
    const int64_t length = kTpuLinearGranule * std::max<int64_t>(2, packing);
    choice.tiles.push_back({{length}});
    if (packing > 1) {
      choice.tiles.push_back({{kTpuLanes}});
      choice.tiles.push_back({{packing, 1}});
    }
    choice.rule = fmt::format("{}; rank {} uses the linear tile ({})", type_text,
                              physical_order_dims.size(), length);
    return choice;
  }
  const int64_t second_minor = physical_order_dims[physical_order_dims.size() - 2];
  const int64_t small_rows = tpu_tile_rows(second_minor);
  const int64_t rows = std::max(small_rows, packing);
  choice.tiles.push_back({{rows, kTpuLanes}});
  if (packing > 1) choice.tiles.push_back({{packing, 1}});
  std::string rows_text =
      small_rows == kTpuDefaultRows
          ? fmt::format("second minor {} -> the standard {} rows", second_minor, kTpuDefaultRows)
          : fmt::format("second minor {} -> the small tile's {} rows", second_minor, small_rows);
  if (rows != small_rows) rows_text += fmt::format(", raised to {} for the packing", rows);
  choice.rule = fmt::format("{}; {}", type_text, rows_text);
  return choice;
}

xla::Shape apply_target(xla::Shape shape, Target target, PredStorage pred, TileChoice* choice) {
  if (target == Target::kNone) return shape;
  if (!shape.layout.tiles.empty() || shape.layout.element_size_in_bits != 0) {
    if (choice) {
      *choice = TileChoice{shape.layout.tiles, shape.layout.element_size_in_bits,
                           "layout written with tiles or E(n): kept as written"};
    }
    return shape;
  }
  std::vector<int64_t> physical;
  const auto& m2m = shape.layout.minor_to_major;
  for (auto it = m2m.rbegin(); it != m2m.rend(); ++it) physical.push_back(shape.dimensions[*it]);
  TileChoice chosen = choose_tpu_tiles(shape.element_type, physical, pred);
  shape.layout.tiles = chosen.tiles;
  shape.layout.element_size_in_bits = chosen.element_size_in_bits;
  if (choice) *choice = std::move(chosen);
  return shape;
}

}  // namespace tessera::explain
