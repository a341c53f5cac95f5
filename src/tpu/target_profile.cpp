// The TPU tile rules (target_profile.h); the per-generation rows live in tpu_generations.cpp.
#include "tessera/explain/target_profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "tessera/explain/tpu_compiler_model.h"
#include "tessera/explain/tpu_generations.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::explain {
namespace {

// The TPU profile's constants (tiled layout spec, "Examples of tiling formats").
constexpr int64_t kTpuLanes = 128;      // the minor tile entry: one vector register row
constexpr int64_t kTpuDefaultRows = 8;  // "tiling by 8x128 ... 32-bit 8x128 vector registers"
constexpr int kTpuWordBits = 32;        // packing collects narrower values into 32 bits
constexpr int64_t kTpuLinearGranule = 128;

// "TPU small tile format": the second most minor size -> tile rows. Extend here (the spec
// announces 6 rows for sizes 5-6 and 9-12).
struct SmallTileRule {
  int64_t max_second_minor;
  int64_t rows;
};
constexpr std::array<SmallTileRule, 2> kSmallTileRules = {{{2, 2}, {4, 4}}};

// Rank-1 linear tiles: the smallest of these that holds the vector, else the last
// (f32[8..256] -> T(256), f32[512] -> T(512), f32[1280] -> T(1024); see tpu_generations.cpp).
constexpr std::array<int64_t, 3> kLinearTiles = {256, 512, 1024};
constexpr int64_t kScalarTile = 256;  // f32[]{:T(256)}; bf16[]{:T(512)(2,1)} is 256 x packing

PredStorage resolved_pred(PredStorage pred, Target target) {
  if (pred != PredStorage::kTargetDefault) return pred;
  return tpu_generation(target).pred;
}

Target generation_of(Target target, XlaEra era) {
  return resolve_target(target == Target::kNone ? Target::kTpu : target, era);
}

}  // namespace

int64_t tpu_tile_rows(int64_t second_minor_size) {
  for (const SmallTileRule& rule : kSmallTileRules) {
    if (second_minor_size >= 1 && second_minor_size <= rule.max_second_minor) return rule.rows;
  }
  return kTpuDefaultRows;
}

int64_t tpu_linear_tile(int64_t elements) {
  for (int64_t length : kLinearTiles) {
    if (elements <= length) return length;
  }
  return kLinearTiles.back();
}

int tpu_stored_bits(ElementType type, PredStorage pred) {
  if (type == ElementType::kPred) {
    if (pred == PredStorage::kOneBit) return 1;
    if (pred == PredStorage::kOneByte) return 8;
    return kTpuWordBits;
  }
  // 64-bit and complex types keep their width (a TPU handles them as pairs of 32-bit words,
  // which tiles exactly like 32-bit data); narrower types are packed to 32 bits.
  return bit_width(type);
}

TileChoice choose_tpu_tiles(ElementType type, std::span<const int64_t> physical_order_dims,
                            PredStorage pred, Target target, XlaEra era) {
  target = generation_of(target, era);
  if (era == XlaEra::k2026) return libtpu_tiles(type, physical_order_dims, target, pred);
  const TpuGeneration& generation = tpu_generation(target);
  TileChoice choice;
  const int bits = tpu_stored_bits(type, resolved_pred(pred, target));
  const int64_t packing = bits < kTpuWordBits ? kTpuWordBits / bits : 1;
  if (bits != default_storage_bits(type)) choice.element_size_in_bits = bits;
  const std::string packing_text =
      packing > 1 ? fmt::format(", packing ({},1): {} values per 32-bit word", packing, packing)
                  : std::string();
  const std::string type_text =
      fmt::format("{} stored in {} bits{}", element_type_name(type), bits, packing_text);
  if (physical_order_dims.empty()) {
    // A scalar: one linear tile of 256 words' worth of values (f32[]{:T(256)},
    // bf16[]{:T(512)(2,1)}).
    const int64_t length = kScalarTile * packing;
    choice.tiles.push_back({{length}});
    if (packing > 1) choice.tiles.push_back({{packing, 1}});
    choice.rule = fmt::format("{}; rank 0 uses the linear tile ({})", type_text, length);
    return choice;
  }
  if (physical_order_dims.size() == 1) {
    const int64_t elements = physical_order_dims[0];
    const int64_t length =
        std::max(tpu_linear_tile(elements), kTpuLinearGranule * std::max<int64_t>(2, packing));
    choice.tiles.push_back({{length}});
    if (packing > 1) {
      choice.tiles.push_back({{kTpuLanes}});
      choice.tiles.push_back({{packing, 1}});
    }
    choice.rule = fmt::format("{}; rank 1 of {} elements uses the linear tile ({})", type_text,
                              elements, length);
    return choice;
  }
  const int64_t second_minor = physical_order_dims[physical_order_dims.size() - 2];
  int64_t small_rows = tpu_tile_rows(second_minor);
  std::string rows_text;
  if (bits == 16 && second_minor == 1) {
    // bf16[2048,1,2048,128]{0,1,3,2:T(4,128)(2,1)} (pytorch/xla#6674); 2 on tpu-v6e/v7x.
    small_rows = generation.sixteen_bit_rows_for_one;
    rows_text = fmt::format("second minor 1 -> {} rows for 16-bit data", small_rows);
  } else if (small_rows != kTpuDefaultRows) {
    rows_text =
        fmt::format("second minor {} -> the small tile's {} rows", second_minor, small_rows);
  } else {
    if (bits == 16) small_rows = generation.sixteen_bit_rows;
    rows_text = fmt::format("second minor {} -> the standard {} rows", second_minor, small_rows);
  }
  const int64_t rows = std::max(small_rows, packing);
  choice.tiles.push_back({{rows, kTpuLanes}});
  if (packing > 1) choice.tiles.push_back({{packing, 1}});
  if (rows != small_rows) rows_text += fmt::format(", raised to {} for the packing", rows);
  choice.rule = fmt::format("{}; {}", type_text, rows_text);
  return choice;
}

bool is_untiled(const xla::Shape& shape) {
  return shape.layout.tiles.empty() && shape.layout.element_size_in_bits == 0;
}

Target explain_default_target(const xla::Shape& shape) {
  return is_untiled(shape) ? Target::kTpu : Target::kNone;
}

xla::Shape layout_for_target(std::string_view text, Target target, PredStorage pred, XlaEra era,
                             TileChoice* choice) {
  bool layout_written = false;
  xla::Shape shape = xla::parse_shape(text, layout_written);
  if (target == Target::kNone) return shape;
  return apply_target(
      std::move(shape), resolve_target(target, era), pred, choice, era,
      layout_written ? DimensionOrder::kAsWritten : DimensionOrder::kCompilerChooses);
}

Target resolve_target(Target target, XlaEra era) {
  if (target != Target::kTpu) return target;
  return era == XlaEra::k2020 ? Target::kTpuV3 : Target::kTpuV5e;
}

xla::Shape apply_target(xla::Shape shape, Target target, PredStorage pred, TileChoice* choice,
                        XlaEra era, DimensionOrder order) {
  if (target == Target::kNone) return shape;
  target = resolve_target(target, era);
  if (!is_untiled(shape)) {
    if (choice) {
      *choice = TileChoice{};
      choice->tiles = shape.layout.tiles;
      choice->element_size_in_bits = shape.layout.element_size_in_bits;
      choice->rule = "layout written with tiles or E(n): kept as written";
    }
    return shape;
  }
  if (era == XlaEra::k2026 && order == DimensionOrder::kCompilerChooses) {
    TileChoice chosen;
    xla::Shape device = libtpu_device_shape(shape.element_type, shape.dimensions, target, pred,
                                            choice ? &chosen : nullptr);
    device.layout.memory_space = shape.layout.memory_space;
    device.layout.tail_padding_alignment_in_elements =
        shape.layout.tail_padding_alignment_in_elements;
    if (choice && device.layout.minor_to_major != shape.layout.minor_to_major) {
      chosen.reordered = true;
      chosen.written_minor_to_major = shape.layout.minor_to_major;
      chosen.written_order_bytes =
          xla::TiledLayout(apply_target(shape, target, pred, nullptr, era)).size_bytes();
    }
    if (choice) *choice = std::move(chosen);
    return device;
  }
  std::vector<int64_t> physical;
  const auto& m2m = shape.layout.minor_to_major;
  for (auto it = m2m.rbegin(); it != m2m.rend(); ++it) physical.push_back(shape.dimensions[*it]);
  TileChoice chosen =
      era == XlaEra::k2026
          ? libtpu_tiles(shape.element_type, physical, target, pred, choice != nullptr)
          : choose_tpu_tiles(shape.element_type, physical, pred, target, era);
  shape.layout.tiles = chosen.tiles;
  shape.layout.element_size_in_bits = chosen.element_size_in_bits;
  if (choice) *choice = std::move(chosen);
  return shape;
}

}  // namespace tessera::explain
