// The era-2026 compiler model (compiler_model.h) as tables. Each row names the sweep in
// tests/fixtures/tpu_oracle/ that shows it; regenerate them with tools/tpu_oracle/regenerate.sh.
#include "tessera/tpu/compiler_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <numeric>
#include <utility>

#include "tessera/checked_arithmetic.h"
#include "tessera/error.h"
#include "tessera/tpu/generations.h"
#include "tessera/tpu/profile_2020.h"
#include "tessera/xla/tiled_layout.h"
#include "tile_constants.h"

namespace tessera::tpu {
namespace {

constexpr int64_t kLanes = kTpuLanes;
constexpr int kWordBits = kTpuWordBits;

// Rows for a second most minor dim s: the first small rule with s <= max_second_minor, else
// whole_tile_rows when s is a multiple of it, else default_rows. Keyed by the type's own packing
// (32 / its bits), which on tpu-v2/v3 differs from the stored one: s2 takes a byte there but
// keeps 16-row tiles.
struct SmallRows {
  int64_t max_second_minor = 0;  // 0: unused entry
  int64_t rows = 0;
};
struct RowsRule {
  int64_t packing;
  std::array<SmallRows, 3> small;
  int64_t default_rows;
  int64_t whole_tile_rows;  // 0: none
  // Rows the order search pads to, when not the tile's: 2-bit arrays are ordered as if their
  // tiles had 8 rows, though they get 16 (sweeps random and rank2_order: s2[8,128,191] is stored
  // {1,0,2}, which needs more bytes than {1,2,0} with 16-row tiles and fewer with 8).
  int64_t order_rows = 0;
};

// tpu-v2 and tpu-v3 (sweep rank2_rows: bf16[1..4,1024] -> T(4,128)(2,1), s8 always
// T(8,128)(4,1), s2 T(16,128)(4,1); f32[1|2,1024] -> T(2,128)).
constexpr std::array<RowsRule, 5> kRowsV2 = {{
    {1, {{{2, 2}, {4, 4}, {}}}, 8, 0},
    {2, {{{4, 4}, {}, {}}}, 8, 0},
    {4, {{{}, {}, {}}}, 8, 0},
    {8, {{{}, {}, {}}}, 8, 0},
    {16, {{{}, {}, {}}}, 16, 0, 8},
}};
// tpu-v4 and later (sweeps rank2_rows and rank2_whole_tiles: f32[1,N] -> T(1,128); whole tiles
// of 8 x packing rows when they divide the second minor: s8[32k,N] -> T(32,128)(4,1),
// s4[64k,N] -> T(64,128)(8,1)E(4), s2[128k,N] -> T(128,128)(16,1)E(2)).
constexpr std::array<RowsRule, 5> kRowsV4 = {{
    {1, {{{1, 1}, {2, 2}, {4, 4}}}, 8, 0},
    {2, {{{2, 2}, {4, 4}, {}}}, 8, 0},
    {4, {{{4, 4}, {}, {}}}, 8, 32},
    {8, {{{}, {}, {}}}, 8, 64},
    {16, {{{}, {}, {}}}, 16, 128, 8},
}};

// A generation's era-2026 facts (its record in generations.cpp) with its rows table.
struct CompilerGeneration {
  int64_t linear_words;  // rank 0 and the smallest rank-1 tile, in 32-bit words
  int min_stored_bits;   // narrower types take this many bits
  const std::array<RowsRule, 5>* rows;
};

constexpr std::array<CompilerRule, 10> kRules = {{
    {"every generation", "pred takes a byte, packed (4,1) like s8",
     "rank0, rank1_lengths, rank2_rows: pred[] -> T(512) (tpu-v4+), pred[3,5] -> T(4,128)(4,1)"},
    {"tpu-v2, tpu-v3", "4-bit and 2-bit types take a byte, packed (4,1), no E(n)",
     "rank2_rows: s4[3,5] -> {1,0:T(8,128)(4,1)}, s2[3,1024] -> {1,0:T(16,128)(4,1)}"},
    {"tpu-v4 and later", "4-bit and 2-bit types take their bits: (8,1)E(4), (16,1)E(2)",
     "rank2_rows: s4[3,1024] -> {1,0:T(8,128)(8,1)E(4)}, s2 -> T(16,128)(16,1)E(2)"},
    {"every generation", "rank 0: T(W), W = 128 words x stored packing (tpu-v2/v3: 256 words)",
     "rank0: f32[] -> T(128), bf16[] -> T(256), s8[] -> T(512); tpu-v2: f32[] -> T(256)"},
    {"every generation",
     "rank 1: T(L)(128)(p,1), L the first of W, 256, 512, 1024 that is >= W and holds the dim, "
     "else 1024 (2-bit: 2048)",
     "rank1_lengths, 1..65537 elements: f32[129] -> T(256), bf16[7] -> T(256)(128)(2,1), "
     "s2[1025] on tpu-v2 -> T(2048)(128)(4,1)"},
    {"every generation",
     "rank 2+: T(R,128)(p,1); second minor s: 32-bit 1->1 (v2/v3: 2), 2->2, <=4->4; 16-bit "
     "<=2->2 (v2/v3: 4), <=4->4; 8-bit <=4->4 (v2/v3: 8); else 8 (2-bit: 16)",
     "rank2_rows: second minor 1..69 x minor 1024, every type"},
    {"tpu-v4 and later",
     "whole tiles: 8-bit second minor a multiple of 32 -> 32 rows; 4-bit of 64 -> 64; 2-bit of "
     "128 -> 128",
     "rank2_whole_tiles: second minor 1..1089 x minor 128 and 1024"},
    {"every generation",
     "order: the minor_to_major with the fewest bytes (2-bit types counted with 8-row tiles); "
     "ties to the lexicographically greatest",
     "rank2_order (26x26 dims), random (ranks 0-6, every type): f32[1024,3] -> {0,1:T(4,128)}"},
    {"every generation", "no elements: {n-1,...,0} with no tiles (E(n) kept)",
     "random: f32[0,5] -> {1,0}, s4[0] -> {0:E(4)} (tpu-v4+)"},
    {"every generation", "1-bit types (s1, u1): not in JAX; the 2020 profile's tiles",
     "no observation possible"},
}};

CompilerGeneration compiler_generation(const TpuTarget& target) {
  const TpuGeneration& g = tpu_generation(target);
  return {g.linear_words, g.min_stored_bits, g.rows == CompilerRows::kTpuV2 ? &kRowsV2 : &kRowsV4};
}

// Bits one value takes; E(n) is printed when that differs from the type's default storage.
int stored_bits(ElementType type, const CompilerGeneration& g, PredStorage pred) {
  if (type == ElementType::kPred) {
    if (pred == PredStorage::kFourBytes) return 32;
    if (pred == PredStorage::kOneBit) return 1;
    return 8;
  }
  return std::max(bit_width(type), g.min_stored_bits);
}

// The packing the tile shapes follow: the type's own (pred as a byte, or as stored when forced).
int64_t own_packing(ElementType type, int stored) {
  if (type == ElementType::kPred) return stored < kWordBits ? kWordBits / stored : 1;
  const int bits = bit_width(type);
  return bits < kWordBits ? kWordBits / bits : 1;
}

const RowsRule* rows_rule(const CompilerGeneration& g, int64_t packing) {
  for (const RowsRule& rule : *g.rows) {
    if (rule.packing == packing) return &rule;
  }
  return nullptr;
}

int64_t tile_rows(const RowsRule& rule, int64_t second_minor) {
  for (const SmallRows& entry : rule.small) {
    if (entry.max_second_minor != 0 && second_minor <= entry.max_second_minor) return entry.rows;
  }
  if (rule.whole_tile_rows != 0 && second_minor % rule.whole_tile_rows == 0) {
    return rule.whole_tile_rows;
  }
  return rule.default_rows;
}

int64_t saturating_multiply(int64_t a, int64_t b) {
  int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) return std::numeric_limits<int64_t>::max();
  return product;
}

int64_t saturating_round_up(int64_t a, int64_t b) {
  const int64_t blocks = ceil_divide(a, b);
  return saturating_multiply(blocks, b);
}

// Rule 2, rank 1: the first of the word tile, 256, 512, 1024 that holds the dim, else the
// largest that the packing allows (sweep rank1_lengths).
int64_t linear_tile_length(int64_t elements, int64_t word_tile, int64_t shape_packing) {
  if (elements <= word_tile) return word_tile;
  for (int64_t candidate : kLinearTiles) {
    if (candidate >= word_tile && elements <= candidate) return candidate;
  }
  return std::max({word_tile, kLinearTiles.back(), kLanes * shape_packing});
}

// Rule 3 for rank >= 2 without empty dims: the minor and second minor dims of the order with
// the fewest bytes. Only those two dims change the size; candidates run from the greatest
// minor_to_major down, so the first strict minimum is the compiler's tie-break.
std::pair<int64_t, int64_t> best_minor_pair(std::span<const int64_t> dims, const RowsRule& rule,
                                            int bits) {
  const std::size_t rank = dims.size();
  // Each dim rounded up as a minor dim (to the lanes) and as a second minor one (to its rows),
  // once; then per pair the product of the other dims, by division when the whole product fits.
  constexpr std::size_t kInline = 16;
  std::array<int64_t, 2 * kInline> inline_rounded{};
  std::vector<int64_t> heap_rounded;
  int64_t* rounded = inline_rounded.data();
  if (rank > kInline) {
    heap_rounded.resize(2 * rank);
    rounded = heap_rounded.data();
  }
  int64_t all = 1;
  for (std::size_t d = 0; d < rank; ++d) {
    const int64_t rows = rule.order_rows != 0 ? rule.order_rows : tile_rows(rule, dims[d]);
    rounded[2 * d] = saturating_round_up(dims[d], kLanes);
    rounded[2 * d + 1] = saturating_round_up(dims[d], rows);
    all = saturating_multiply(all, dims[d]);
  }
  int64_t best_bytes = std::numeric_limits<int64_t>::max();
  std::pair<int64_t, int64_t> best = {static_cast<int64_t>(rank) - 1,
                                      static_cast<int64_t>(rank) - 2};
  // An array of more than 2^63 elements has no size in any order (it is refused when its size is
  // asked): the search, cubic in the rank without the division below, is not made
  // (tests/cli/test_hostile_round3_cli.py).
  if (all == std::numeric_limits<int64_t>::max()) return best;
  for (std::size_t minor = rank; minor-- > 0;) {
    const int64_t without_minor = all / dims[minor];
    for (std::size_t second = rank; second-- > 0;) {
      if (second == minor) continue;
      int64_t elements = without_minor / dims[second];
      elements = saturating_multiply(elements, rounded[2 * second + 1]);
      elements = saturating_multiply(elements, rounded[2 * minor]);
      const int64_t bytes = saturating_multiply(elements, bits);  // bits: same order as bytes
      if (bytes < best_bytes) {
        best_bytes = bytes;
        best = {static_cast<int64_t>(minor), static_cast<int64_t>(second)};
      }
    }
  }
  return best;
}

}  // namespace

bool libtpu_compiles(ElementType type) {
  return bit_width(type) >= 2 || type == ElementType::kPred;
}

bool libtpu_models(ElementType type, const TpuTarget& target) {
  const CompilerGeneration g = compiler_generation(target);
  return libtpu_compiles(type) &&
         rows_rule(g, own_packing(type, stored_bits(type, g, target.pred))) != nullptr;
}

std::span<const CompilerRule> libtpu_rules() {
  return kRules;
}

namespace {

// libtpu_tiles; the rule's words only `with_rule` (they cost more than the tiles).
TileChoice tiles_of(ElementType type, std::span<const int64_t> physical_order_dims,
                    const TpuTarget& target, bool with_rule) {
  const CompilerGeneration g = compiler_generation(target);
  const PredStorage pred = target.pred;
  const int bits = stored_bits(type, g, pred);
  const int64_t packing = packing_of(bits);
  const int64_t shape_packing = own_packing(type, bits);
  const RowsRule* rule = rows_rule(g, shape_packing);
  if (!libtpu_compiles(type) || rule == nullptr) {
    TileChoice old = tiles_2020(type, physical_order_dims, *target.generation, pred);
    old.rule += "; no observation of today's compiler for it, so the 2020 profile's tiles";
    return old;
  }
  TileChoice choice;
  if (bits != default_storage_bits(type)) choice.element_size_in_bits = bits;
  auto type_text = [&] {
    return packing > 1 ? fmt::format("{} in {} bits, {} per 32-bit word", element_type_name(type),
                                     bits, packing)
                       : fmt::format("{} in {} bits", element_type_name(type), bits);
  };
  const int64_t word_tile = g.linear_words * packing;
  const std::size_t rank = physical_order_dims.size();
  if (rank == 0) {
    choice.tiles.push_back({{word_tile}});
    if (with_rule) choice.rule = fmt::format("{}; rank 0 -> T({})", type_text(), word_tile);
    return choice;
  }
  if (rank == 1) {
    const int64_t elements = physical_order_dims[0];
    const int64_t length = linear_tile_length(elements, word_tile, shape_packing);
    choice.tiles.push_back({{length}});
    if (packing > 1) {
      choice.tiles.push_back({{kLanes}});
      choice.tiles.push_back({{packing, 1}});
    }
    if (with_rule) {
      choice.rule =
          fmt::format("{}; rank 1 of {} elements -> T({})", type_text(), elements, length);
    }
    return choice;
  }
  const int64_t second_minor = physical_order_dims[rank - 2];
  const int64_t rows = tile_rows(*rule, second_minor);
  choice.tiles.push_back({{rows, kLanes}});
  if (packing > 1) choice.tiles.push_back({{packing, 1}});
  if (!with_rule) return choice;
  std::string why = fmt::format("second minor {} -> {} rows", second_minor, rows);
  if (rows == rule->default_rows) {
    why = fmt::format("second minor {} -> the standard {} rows", second_minor, rows);
  }
  if (rows == rule->whole_tile_rows) {
    why = fmt::format("second minor {}, a multiple of {} -> {} rows", second_minor, rows, rows);
  }
  choice.rule = fmt::format("{}; {}", type_text(), why);
  return choice;
}

}  // namespace

TileChoice libtpu_tiles(ElementType type, std::span<const int64_t> physical_order_dims,
                        const TpuTarget& target, bool with_rule) {
  return tiles_of(type, physical_order_dims, target, with_rule);
}

std::vector<int64_t> libtpu_minor_to_major(ElementType type, std::span<const int64_t> dims,
                                           const TpuTarget& target) {
  const PredStorage pred = target.pred;
  const int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<int64_t> descending(static_cast<std::size_t>(rank));
  std::iota(descending.rbegin(), descending.rend(), 0);
  if (rank < 2 || !libtpu_compiles(type) || std::find(dims.begin(), dims.end(), 0) != dims.end()) {
    return descending;
  }
  const CompilerGeneration g = compiler_generation(target);
  const int bits = stored_bits(type, g, pred);
  const RowsRule* rule = rows_rule(g, own_packing(type, bits));
  if (rule == nullptr) return descending;
  // The rest keep the descending order, the lexicographically greatest arrangement of them.
  const auto [minor, second] = best_minor_pair(dims, *rule, bits);
  std::vector<int64_t> order = {minor, second};
  for (int64_t d = rank - 1; d >= 0; --d) {
    if (d != minor && d != second) order.push_back(d);
  }
  return order;
}

int64_t libtpu_device_bytes(ElementType type, std::span<const int64_t> dims,
                            const TpuTarget& target, DimensionOrder order) {
  const CompilerGeneration g = compiler_generation(target);
  const PredStorage pred = target.pred;
  const int bits = stored_bits(type, g, pred);
  const RowsRule* rule = rows_rule(g, own_packing(type, bits));
  if (!libtpu_compiles(type) || rule == nullptr) {
    return xla::TiledLayout(libtpu_device_shape(type, dims, target)).size_bytes();
  }
  if (std::find(dims.begin(), dims.end(), 0) != dims.end()) return 0;
  const int64_t packing = packing_of(bits);
  const int64_t word_tile = g.linear_words * packing;
  constexpr std::string_view kWhat = "device array size";
  int64_t elements = word_tile;  // rank 0: one linear tile
  if (dims.size() == 1) {
    const int64_t length = linear_tile_length(dims[0], word_tile, own_packing(type, bits));
    elements = round_up(dims[0], length, kWhat);
  } else if (dims.size() >= 2) {
    // The tiles' rows are a multiple of the packing (p,1), so only the first tile pads.
    const int64_t rank = static_cast<int64_t>(dims.size());
    const auto [minor, second] = order == DimensionOrder::kAsWritten
                                     ? std::pair<int64_t, int64_t>{rank - 1, rank - 2}
                                     : best_minor_pair(dims, *rule, bits);
    elements = round_up(dims[static_cast<std::size_t>(minor)], kLanes, kWhat);
    elements =
        checked_multiply(elements,
                         round_up(dims[static_cast<std::size_t>(second)],
                                  tile_rows(*rule, dims[static_cast<std::size_t>(second)]), kWhat),
                         kWhat);
    for (std::size_t d = 0; d < dims.size(); ++d) {
      if (static_cast<int64_t>(d) != minor && static_cast<int64_t>(d) != second) {
        elements = checked_multiply(elements, dims[d], kWhat);
      }
    }
  }
  return bytes_for_bits(elements, bits);
}

xla::Shape libtpu_device_shape(ElementType type, std::span<const int64_t> dims,
                               const TpuTarget& target, TileChoice* choice) {
  const PredStorage pred = target.pred;
  xla::Shape shape;
  shape.element_type = type;
  shape.dimensions.assign(dims.begin(), dims.end());
  shape.layout.minor_to_major = libtpu_minor_to_major(type, dims, target);
  if (std::find(dims.begin(), dims.end(), 0) != dims.end() && libtpu_compiles(type)) {
    // Sweep "random": an empty array keeps no tiles, only its storage width.
    const int bits = stored_bits(type, compiler_generation(target), pred);
    if (bits != default_storage_bits(type)) shape.layout.element_size_in_bits = bits;
    if (choice) {
      *choice = TileChoice{};
      choice->element_size_in_bits = shape.layout.element_size_in_bits;
      choice->rule = "no elements: the compiler gives no tiles";
    }
    return shape;
  }
  std::vector<int64_t> physical;
  const auto& m2m = shape.layout.minor_to_major;
  for (auto it = m2m.rbegin(); it != m2m.rend(); ++it) physical.push_back(dims[*it]);
  TileChoice chosen = tiles_of(type, physical, target, choice != nullptr);
  shape.layout.tiles = chosen.tiles;
  shape.layout.element_size_in_bits = chosen.element_size_in_bits;
  if (choice) *choice = std::move(chosen);
  return shape;
}

}  // namespace tessera::tpu
