#include "tessera/explain/layout_suggestions.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "tessera/explain/tpu_generations.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::explain {
namespace {

// Above this rank the candidates are the choices of the two minor dims only (rank 6: 30
// candidates instead of 720).
constexpr int kMaxRankForAllOrders = 5;

struct Candidate {
  xla::Shape shape;
  std::string change;
  int moved = 0;  // how far up the order changes: 1 + the most major m2m position that differs
};

std::string describe_order(const std::vector<int64_t>& m2m) {
  if (m2m.size() < 2) return fmt::format("minor_to_major {{{}}}", fmt::join(m2m, ","));
  return fmt::format("minor_to_major {{{}}}: dim {} minor, dim {} second minor",
                     fmt::join(m2m, ","), m2m[0], m2m[1]);
}

std::vector<std::vector<int64_t>> candidate_orders(const std::vector<int64_t>& m2m) {
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
  for (int64_t minor : m2m) {
    for (int64_t second : m2m) {
      if (minor == second) continue;
      std::vector<int64_t> order{minor, second};
      for (int64_t d : m2m) {
        if (d != minor && d != second) order.push_back(d);
      }
      orders.push_back(order);
    }
  }
  return orders;
}

xla::Shape relaid(const xla::Shape& shape, const std::vector<int64_t>& m2m, Target target,
                  PredStorage pred) {
  xla::Shape out = shape;
  out.layout.minor_to_major = m2m;
  if (target != Target::kNone) {
    out.layout.tiles.clear();
    out.layout.element_size_in_bits = 0;
    out = apply_target(std::move(out), target, pred);
  }
  return out;
}

std::string pred_storage_change(PredStorage storage) {
  if (storage == PredStorage::kOneBit) return "pred stored in 1 bit: the spec's (32,128)(32,1)E(1)";
  if (storage == PredStorage::kOneByte) return "pred stored in 1 byte, as TPU v4 and later do";
  return "pred stored in 4 bytes, as TPU v2 and v3 do";
}

}  // namespace

std::vector<LayoutSuggestion> suggest_layouts(const xla::Shape& shape, int64_t current_size_bytes,
                                              Target target, PredStorage pred, std::size_t limit) {
  std::vector<Candidate> candidates;
  const auto& current = shape.layout.minor_to_major;
  for (const auto& order : candidate_orders(current)) {
    int moved = 0;  // ties go to the order that keeps the most major dims where they are
    for (std::size_t i = 0; i < order.size(); ++i) {
      if (order[i] != current[i]) moved = static_cast<int>(i) + 1;
    }
    candidates.push_back({relaid(shape, order, target, pred), describe_order(order), moved});
  }
  if (is_tpu(target) && shape.element_type == ElementType::kPred) {
    const PredStorage current_pred =
        pred == PredStorage::kTargetDefault ? tpu_generation(target).pred : pred;
    for (PredStorage other :
         {PredStorage::kFourBytes, PredStorage::kOneByte, PredStorage::kOneBit}) {
      if (other == current_pred) continue;
      candidates.push_back({relaid(shape, current, target, other), pred_storage_change(other), 1});
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
    out.push_back({std::move(text), layout.size_bytes(), current_size_bytes - layout.size_bytes(),
                   layout.padding_fraction(), std::move(c.change)});
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
  for (std::size_t i = 0; i < order.size() && i < limit; ++i) ranked.push_back(out[order[i]]);
  return ranked;
}

}  // namespace tessera::explain
