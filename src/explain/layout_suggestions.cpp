#include "tessera/explain/layout_suggestions.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "tessera/explain/suggestion_groups.h"
#include "tessera/tpu/generations.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::explain {
namespace {

// Above this rank the candidates are the choices of the two minor dims only (rank 6: 30
// candidates instead of 720).
constexpr int kMaxRankForAllOrders = 5;
// ... among the dims larger than 1 (a size-1 dim gains nothing from moving), most minor first,
// and at most this many: each candidate costs O(rank) to lay out, so a shape of hundreds of
// size-1 dims no longer costs rank^3 in time and memory
// (tests/cli/test_hostile_cli.py::test_explain_of_a_high_rank_shape_bounds_its_search_and_says_so).
constexpr std::size_t kMaxOrderCandidates = 64;

struct Candidate {
  const char* kind;
  xla::Shape shape;
  std::string change;
  int moved = 0;  // how far up the order changes: 1 + the most major m2m position that differs
};

std::string describe_order(const std::vector<int64_t>& m2m) {
  if (m2m.size() < 2) return fmt::format("minor_to_major {{{}}}", fmt::join(m2m, ","));
  return fmt::format("minor_to_major {{{}}}: dim {} minor, dim {} second minor",
                     fmt::join(m2m, ","), m2m[0], m2m[1]);
}

std::vector<int64_t> movable_dims(const xla::Shape& shape) {
  std::vector<int64_t> movable;
  for (int64_t d : shape.layout.minor_to_major) {
    if (shape.dimensions[static_cast<std::size_t>(d)] != 1) movable.push_back(d);
  }
  return movable;
}

std::vector<std::vector<int64_t>> candidate_orders(const xla::Shape& shape) {
  const std::vector<int64_t>& m2m = shape.layout.minor_to_major;
  std::vector<std::vector<int64_t>> orders;
  const std::size_t rank = m2m.size();
  if (static_cast<int>(rank) <= kMaxRankForAllOrders) {
    std::vector<int64_t> order(rank);
    std::iota(order.begin(), order.end(), 0);
    do {
      orders.push_back(order);
    } while (std::next_permutation(order.begin(), order.end()));
    return orders;
  }
  const std::vector<int64_t> movable = movable_dims(shape);
  for (int64_t minor : movable) {
    for (int64_t second : movable) {
      if (minor == second) continue;
      if (orders.size() == kMaxOrderCandidates) return orders;
      std::vector<int64_t> order{minor, second};
      for (int64_t d : m2m) {
        if (d != minor && d != second) order.push_back(d);
      }
      orders.push_back(order);
    }
  }
  return orders;
}

xla::Shape relaid(const xla::Shape& shape, const std::vector<int64_t>& m2m,
                  const tpu::TpuTarget& target) {
  xla::Shape out = shape;
  out.layout.minor_to_major = m2m;
  if (target.is_tpu()) {
    out.layout.tiles.clear();
    out.layout.element_size_in_bits = 0;
    out = tpu::apply_target(std::move(out), target);
  }
  return out;
}

std::string pred_storage_change(tpu::PredStorage storage) {
  if (storage == tpu::PredStorage::kOneBit)
    return "pred stored in 1 bit: the spec's (32,128)(32,1)E(1)";
  if (storage == tpu::PredStorage::kOneByte) return "pred stored in 1 byte, as TPUs store it today";
  return "pred stored in 4 bytes, as TPU v2 and v3 do";
}

}  // namespace

nlohmann::ordered_json layout_suggestion_json(const LayoutSuggestion& s) {
  return {{"kind", s.kind},
          {"layout", s.layout},
          {"size_bytes", s.size_bytes},
          {"bytes_saved", s.bytes_saved},
          {"padding_fraction", s.padding_fraction},
          {"change", s.change},
          {"alternatives", s.alternatives}};
}

std::vector<LayoutSuggestion> suggest_layouts(const xla::Shape& shape, int64_t current_size_bytes,
                                              const tpu::TpuTarget& target, std::size_t limit) {
  std::vector<Candidate> candidates;
  const auto& current = shape.layout.minor_to_major;
  for (const auto& order : candidate_orders(shape)) {
    int moved = 0;  // ties go to the order that keeps the most major dims where they are
    for (std::size_t i = 0; i < order.size(); ++i) {
      if (order[i] != current[i]) moved = static_cast<int>(i) + 1;
    }
    candidates.push_back({"reorder", relaid(shape, order, target), describe_order(order), moved});
  }
  if (target.is_tpu() && shape.element_type == ElementType::kPred) {
    using tpu::PredStorage;
    const PredStorage current_pred = tpu::stored_pred(target);
    for (PredStorage other :
         {PredStorage::kFourBytes, PredStorage::kOneByte, PredStorage::kOneBit}) {
      if (other == current_pred) continue;
      // Today's TPUs store pred in a byte, and only so: no 1-bit or 4-byte pred is suggested.
      if (target.era == tpu::XlaEra::k2026 && other != PredStorage::kOneByte) continue;
      tpu::TpuTarget stored_otherwise = target;
      stored_otherwise.pred = other;
      candidates.push_back(
          {"storage", relaid(shape, current, stored_otherwise), pred_storage_change(other), 1});
    }
  }
  const std::string current_text = xla::print_shape(shape);
  std::set<std::string> seen{current_text};
  std::vector<LayoutSuggestion> out;
  std::vector<int> moved;
  for (Candidate& c : candidates) {
    std::string text = xla::print_shape(c.shape);
    if (!seen.insert(text).second) continue;
    const xla::TiledLayout layout(c.shape);
    // A layout that takes more memory than the current one is no suggestion: a device array is
    // already in the order the compiler found smallest, and every other order would be listed
    // with a negative saving.
    if (layout.size_bytes() > current_size_bytes) continue;
    out.push_back({c.kind,
                   std::move(text),
                   layout.size_bytes(),
                   current_size_bytes - layout.size_bytes(),
                   layout.padding_fraction(),
                   std::move(c.change),
                   {}});
    moved.push_back(c.moved);
  }
  std::vector<std::size_t> order(out.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (out[a].size_bytes != out[b].size_bytes) return out[a].size_bytes < out[b].size_bytes;
    if (moved[a] != moved[b]) return moved[a] < moved[b];
    return out[a].layout < out[b].layout;
  });
  std::vector<LayoutSuggestion> ranked;
  for (std::size_t i : order) ranked.push_back(std::move(out[i]));
  return group_equivalent(std::move(ranked), limit);
}

std::string suggestion_search_note(const xla::Shape& shape) {
  const std::size_t rank = shape.layout.minor_to_major.size();
  if (static_cast<int>(rank) <= kMaxRankForAllOrders) return "";
  const std::size_t movable = movable_dims(shape).size();
  const std::size_t pairs = movable < 2 ? 0 : movable * (movable - 1);
  if (movable == rank && pairs <= kMaxOrderCandidates) return "";
  return fmt::format(
      "tried {} of {} choices of the two minor dims among the {} dims larger than 1{}; the {} "
      "size-1 dims stay in place",
      std::min(pairs, kMaxOrderCandidates), pairs, movable,
      pairs > kMaxOrderCandidates ? fmt::format(" (at most {})", kMaxOrderCandidates) : "",
      rank - movable);
}

}  // namespace tessera::explain
