#include "relayout/common_refinement.h"

#include <algorithm>

namespace tessera::relayout {
namespace {

// One digit of a (refined) dimension: value (v / weight) % extent moves `stride` elements on
// each side. extent 0 marks the most significant digit, which never wraps.
struct Level {
  int64_t weight = 1;
  int64_t extent = 0;
  int64_t source_stride = 0;
  int64_t destination_stride = 0;
};

// A sub-range of one dimension's values: `start`, then `count` steps of level `level` with all
// lower levels running fully (level -1: the single value `start`).
struct RangePiece {
  int64_t start = 0;
  int level = -1;
  int64_t count = 1;
};

// Splits [lo, hi) into pieces that are boxes of the mixed radix `levels` (weights ascending,
// levels[0].weight == 1): at most two boundary pieces per level around one interior piece.
void decompose(int64_t lo, int64_t hi, int level, const std::vector<Level>& levels,
               std::vector<RangePiece>& out) {
  if (lo >= hi) return;
  if (level < 0) {  // unreachable with weight-1 bottom level; kept for safety
    for (int64_t v = lo; v < hi; ++v) out.push_back({v, -1, 1});
    return;
  }
  const int64_t w = levels[level].weight;
  const int64_t first_full = (lo + w - 1) / w * w;
  const int64_t last_full = hi / w * w;
  if (first_full >= last_full) {
    if (first_full > last_full) {
      decompose(lo, hi, level - 1, levels, out);
    } else {
      decompose(lo, first_full, level - 1, levels, out);
      decompose(first_full, hi, level - 1, levels, out);
    }
    return;
  }
  decompose(lo, first_full, level - 1, levels, out);
  out.push_back({first_full, level, (last_full - first_full) / w});
  decompose(last_full, hi, level - 1, levels, out);
}

// A factor of a box: the part one dimension contributes.
struct BoxFactor {
  int64_t source_offset = 0;
  int64_t destination_offset = 0;
  std::vector<StridedAxis> axes;
};

std::vector<BoxFactor> factors(const std::vector<RangePiece>& pieces,
                               const std::vector<Level>& levels) {
  std::vector<BoxFactor> out;
  for (const RangePiece& piece : pieces) {
    BoxFactor f;
    for (std::size_t j = 0; j < levels.size(); ++j) {
      const Level& l = levels[j];
      int64_t digit = piece.start / l.weight;
      if (l.extent != 0) digit %= l.extent;
      f.source_offset += digit * l.source_stride;
      f.destination_offset += digit * l.destination_stride;
      if (static_cast<int>(j) < piece.level) {
        f.axes.push_back({l.extent, l.source_stride, l.destination_stride});
      } else if (static_cast<int>(j) == piece.level) {
        f.axes.push_back({piece.count, l.source_stride, l.destination_stride});
      }
    }
    out.push_back(std::move(f));
  }
  return out;
}

// Every combination of one factor per dimension, as simplified boxes.
void cartesian(const std::vector<std::vector<BoxFactor>>& per_dimension, int64_t source_base,
               int64_t destination_base, std::vector<StridedBox>& out) {
  for (const auto& f : per_dimension) {
    if (f.empty()) return;
  }
  std::vector<std::size_t> choice(per_dimension.size(), 0);
  while (true) {
    StridedBox box{source_base, destination_base, {}};
    for (std::size_t i = 0; i < per_dimension.size(); ++i) {
      const BoxFactor& f = per_dimension[i][choice[i]];
      box.source_base += f.source_offset;
      box.destination_base += f.destination_offset;
      box.axes.insert(box.axes.end(), f.axes.begin(), f.axes.end());
    }
    simplify(box);
    out.push_back(std::move(box));
    std::size_t i = per_dimension.size();
    while (i > 0) {
      --i;
      if (++choice[i] < per_dimension[i].size()) break;
      choice[i] = 0;
      if (i == 0) return;
    }
    if (per_dimension.empty()) return;
  }
}

std::vector<Digit> digits_of(const DigitForm& form, int dimension) {
  std::vector<Digit> mine;
  for (const Digit& d : form.digits) {
    if (d.dimension == dimension) mine.push_back(d);
  }
  std::sort(mine.begin(), mine.end(),
            [](const Digit& a, const Digit& b) { return a.weight < b.weight; });
  return mine;
}

// The stride of refined weight b on one side: the side's digit that holds b, scaled.
int64_t stride_at(const std::vector<Digit>& side, int64_t b) {
  for (std::size_t k = side.size(); k-- > 0;) {
    if (side[k].weight <= b) return side[k].stride * (b / side[k].weight);
  }
  return 0;  // the side has no digit: the dimension's value is always below its first weight
}

// The destination's own digits of one dimension as levels (destination strides only).
std::vector<Level> destination_levels(const std::vector<Digit>& mine) {
  std::vector<Level> levels;
  for (const Digit& d : mine) levels.push_back({d.weight, d.extent, 0, d.stride});
  if (levels.empty()) levels.push_back({1, 1, 0, 0});
  return levels;
}

std::vector<RangePiece> whole(const std::vector<Level>& levels) {
  const int top = static_cast<int>(levels.size()) - 1;
  return {{0, top, levels[top].extent}};
}

}  // namespace

std::optional<std::vector<StridedBox>> data_boxes(const DigitForm& from, const DigitForm& to,
                                                  const std::vector<int64_t>& dims) {
  int64_t source_base = from.base;
  int64_t destination_base = to.base;
  std::vector<std::vector<BoxFactor>> per_dimension;
  for (int dim = 0; dim < static_cast<int>(dims.size()); ++dim) {
    const std::vector<Digit> a = digits_of(from, dim);
    const std::vector<Digit> b = digits_of(to, dim);
    // Both sides must count the dimension from the same origin. A side whose dimension is one
    // plain digit (offset linear in the index: a row-major tensor's C against an NPU tensor
    // starting at NPU q) takes the other side's origin by moving its base.
    int64_t lo = to.origins[dim];
    const int64_t shift = to.origins[dim] - from.origins[dim];
    if (shift != 0) {
      if (a.size() <= 1 && (a.empty() || a[0].weight == 1)) {
        source_base -= shift * (a.empty() ? 0 : a[0].stride);
      } else if (b.size() <= 1 && (b.empty() || b[0].weight == 1)) {
        destination_base += shift * (b.empty() ? 0 : b[0].stride);
        lo = from.origins[dim];
      } else {
        return std::nullopt;
      }
    }
    const int64_t hi = lo + dims[dim];
    std::vector<int64_t> weights{1};
    for (const auto* side : {&a, &b}) {
      for (const Digit& d : *side) {
        if (d.weight < hi) weights.push_back(d.weight);
      }
    }
    std::sort(weights.begin(), weights.end());
    weights.erase(std::unique(weights.begin(), weights.end()), weights.end());
    std::vector<Level> levels;
    for (std::size_t j = 0; j < weights.size(); ++j) {
      Level l{weights[j], 0, stride_at(a, weights[j]), stride_at(b, weights[j])};
      if (j + 1 < weights.size()) {
        if (weights[j + 1] % weights[j] != 0) return std::nullopt;  // no common mixed radix
        l.extent = weights[j + 1] / weights[j];
      }
      levels.push_back(l);
    }
    std::vector<RangePiece> pieces;
    decompose(lo, hi, static_cast<int>(levels.size()) - 1, levels, pieces);
    per_dimension.push_back(factors(pieces, levels));
  }
  std::vector<StridedBox> boxes;
  cartesian(per_dimension, source_base, destination_base, boxes);
  return boxes;
}

std::vector<StridedBox> padding_boxes(const IndexMap& destination) {
  const DigitForm& form = *destination.digit_form();
  std::vector<StridedBox> boxes;
  const int rank = destination.rank();
  std::vector<std::vector<Level>> levels(rank);
  std::vector<std::vector<BoxFactor>> data(rank), full(rank), outside(rank);
  for (int dim = 0; dim < rank; ++dim) {
    levels[dim] = destination_levels(digits_of(form, dim));
    const int top = static_cast<int>(levels[dim].size()) - 1;
    const int64_t span = levels[dim][top].weight * levels[dim][top].extent;
    const int64_t lo = form.origins[dim];
    const int64_t hi = lo + destination.dims()[dim];
    std::vector<RangePiece> inside, beyond;
    decompose(lo, hi, top, levels[dim], inside);
    decompose(0, lo, top, levels[dim], beyond);
    decompose(hi, span, top, levels[dim], beyond);
    data[dim] = factors(inside, levels[dim]);
    full[dim] = factors(whole(levels[dim]), levels[dim]);
    outside[dim] = factors(beyond, levels[dim]);
  }
  // Padding axes: data only where every padding axis is 0.
  std::vector<Digit> padding_axes;
  for (const Digit& d : form.digits) {
    if (d.dimension == Digit::kPaddingAxis) padding_axes.push_back(d);
  }
  const auto axis_factor = [](const Digit& d, int64_t first) {
    return std::vector<BoxFactor>{{0, first * d.stride, {{d.extent - first, 0, d.stride}}}};
  };
  const std::vector<BoxFactor> zero{{0, 0, {}}};
  // Out of range in dimension `dim`, in range before it, anything after; padding axes at 0.
  for (int dim = 0; dim < rank; ++dim) {
    std::vector<std::vector<BoxFactor>> parts;
    for (int k = 0; k < rank; ++k)
      parts.push_back(k < dim ? data[k] : k == dim ? outside[k] : full[k]);
    cartesian(parts, 0, form.base, boxes);
  }
  // Padding axis p nonzero, the ones before it zero, everything else anything.
  for (std::size_t p = 0; p < padding_axes.size(); ++p) {
    std::vector<std::vector<BoxFactor>> parts(full.begin(), full.end());
    for (std::size_t q = 0; q < padding_axes.size(); ++q) {
      parts.push_back(q < p ? zero : axis_factor(padding_axes[q], q == p ? 1 : 0));
    }
    cartesian(parts, 0, form.base, boxes);
  }
  // The tail after a dense grid that starts the buffer (XLA: tiles, then L(n) rounding).
  int64_t grid = 1;
  int64_t reach = 0;
  for (const Digit& d : form.digits) {
    grid *= d.extent;
    reach += (d.extent - 1) * d.stride;
  }
  if (form.base == 0 && reach + 1 == grid && grid < destination.size_elements()) {
    boxes.push_back({0, grid, {{destination.size_elements() - grid, 0, 1}}});
  }
  std::erase_if(boxes, [](const StridedBox& b) { return b.elements() == 0; });
  return boxes;
}

}  // namespace tessera::relayout
