// The era-2020 TPU profile (profile_2020.h); the per-generation rows live in generations.cpp.
#include "tessera/tpu/profile_2020.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "tessera/tpu/generations.h"
#include "tile_constants.h"

namespace tessera::tpu {
namespace {

constexpr int64_t kTpuDefaultRows = 8;  // "tiling by 8x128 ... 32-bit 8x128 vector registers"
constexpr int64_t kTpuLinearGranule = 128;

// "TPU small tile format": the second most minor size -> tile rows. Extend here (the spec
// announces 6 rows for sizes 5-6 and 9-12).
struct SmallTileRule {
  int64_t max_second_minor;
  int64_t rows;
};
constexpr std::array<SmallTileRule, 2> kSmallTileRules = {{{2, 2}, {4, 4}}};

constexpr int64_t kScalarTile = 256;  // f32[]{:T(256)}; bf16[]{:T(512)(2,1)} is 256 x packing

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

TileChoice tiles_2020(ElementType type, std::span<const int64_t> physical_order_dims,
                      Generation of, PredStorage pred) {
  const TpuGeneration& generation = tpu_generation(of);
  TileChoice choice;
  const int bits =
      tpu_stored_bits(type, pred == PredStorage::kTargetDefault ? generation.pred_2020 : pred);
  const int64_t packing = packing_of(bits);
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
    small_rows = generation.sixteen_bit_rows_for_one_2020;
    rows_text = fmt::format("second minor 1 -> {} rows for 16-bit data", small_rows);
  } else if (small_rows != kTpuDefaultRows) {
    rows_text =
        fmt::format("second minor {} -> the small tile's {} rows", second_minor, small_rows);
  } else {
    if (bits == 16) small_rows = generation.sixteen_bit_rows_2020;
    rows_text = fmt::format("second minor {} -> the standard {} rows", second_minor, small_rows);
  }
  const int64_t rows = std::max(small_rows, packing);
  choice.tiles.push_back({{rows, kTpuLanes}});
  if (packing > 1) choice.tiles.push_back({{packing, 1}});
  if (rows != small_rows) rows_text += fmt::format(", raised to {} for the packing", rows);
  choice.rule = fmt::format("{}; {}", type_text, rows_text);
  return choice;
}

}  // namespace tessera::tpu
