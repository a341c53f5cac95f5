#include "tessera/relayout/moved_elements.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "relayout/common_refinement.h"
#include "tessera/error.h"

namespace tessera::relayout {
namespace {

// Bit positions and their differences: offsets times element bits may pass 64 bits.
__extension__ using Wide = __int128;

// Search nodes over all boxes; real layout pairs take a few per box (each box's equation has at
// most a handful of counters left once the ones that move both sides alike drop out).
constexpr int64_t kSearchBudget = int64_t{1} << 26;

Wide floor_div(Wide a, Wide b) {  // b > 0
  Wide q = a / b;
  if ((a % b != 0) && (a < 0)) --q;
  return q;
}

Wide ceil_div(Wide a, Wide b) {  // b > 0
  return -floor_div(-a, b);
}

Wide gcd(Wide a, Wide b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b != 0) {
    const Wide t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// x with a * x = 1 (mod m), for coprime a and m >= 1.
Wide inverse_mod(Wide a, Wide m) {
  Wide old_r = ((a % m) + m) % m, r = m, old_s = 1, s = 0;
  while (r != 0) {
    const Wide q = old_r / r;
    Wide t = old_r - q * r;
    old_r = r;
    r = t;
    t = old_s - q * s;
    old_s = s;
    s = t;
  }
  return ((old_s % m) + m) % m;
}

// One loop counter c in [0, count) that adds c * step to A's bit position minus B's.
struct Counter {
  int64_t count = 1;
  Wide step = 0;  // > 0 once normalised
};

class Solver {
 public:
  explicit Solver(int64_t& budget) : budget_(budget) {}

  // The number of counter values whose steps sum to `target`.
  int64_t count(std::vector<Counter> counters, Wide target) {
    // A negative step runs the counter from its other end: c -> count - 1 - c.
    for (Counter& c : counters) {
      if (c.step < 0) {
        target -= static_cast<Wide>(c.count - 1) * c.step;
        c.step = -c.step;
      }
    }
    std::sort(counters.begin(), counters.end(),
              [](const Counter& a, const Counter& b) { return a.step > b.step; });
    counters_ = std::move(counters);
    const std::size_t n = counters_.size();
    reach_.assign(n + 1, 0);
    divisor_.assign(n + 1, 0);
    for (std::size_t k = n; k-- > 0;) {
      reach_[k] = reach_[k + 1] + static_cast<Wide>(counters_[k].count - 1) * counters_[k].step;
      divisor_[k] = gcd(divisor_[k + 1], counters_[k].step);
    }
    return search(0, target);
  }

 private:
  int64_t search(std::size_t k, Wide target) {
    if (--budget_ < 0) {
      throw Error(ErrorKind::kUnsupported,
                  "counting the moved elements needs more steps than its bound allows");
    }
    const std::size_t n = counters_.size();
    if (target < 0 || target > reach_[k]) return 0;
    if (k == n) return target == 0 ? 1 : 0;
    if (target % divisor_[k] != 0) return 0;
    if (k + 1 == n) {
      const Counter& c = counters_[k];
      return target % c.step == 0 && target / c.step < c.count ? 1 : 0;
    }
    if (k + 2 == n) return pair(counters_[k], counters_[k + 1], target);
    const Counter& c = counters_[k];
    // c * step must leave a target the rest can reach and divide.
    Wide low = std::max<Wide>(0, ceil_div(target - reach_[k + 1], c.step));
    const Wide high = std::min<Wide>(c.count - 1, floor_div(target, c.step));
    if (low > high) return 0;
    const Wide rest = divisor_[k + 1];
    const Wide g = gcd(c.step, rest);
    const Wide modulus = rest / g;
    // c * (step / g) = target / g (mod rest / g).
    const Wide first = modulus == 1 ? 0
                                    : ((target / g) % modulus) *
                                          inverse_mod((c.step / g) % modulus, modulus) % modulus;
    low += ((first - low) % modulus + modulus) % modulus;
    int64_t total = 0;
    for (Wide value = low; value <= high; value += modulus) {
      total += search(k + 1, target - value * c.step);
    }
    return total;
  }

  // Solutions of x * a.step + y * b.step = target with x < a.count, y < b.count, in closed form.
  static int64_t pair(const Counter& a, const Counter& b, Wide target) {
    const Wide g = gcd(a.step, b.step);
    if (target % g != 0) return 0;
    const Wide p = a.step / g, q = b.step / g, t = target / g;
    // x = x0 + j * q, y = y0 - j * p for integers j.
    const Wide x0 = q == 1 ? 0 : (t % q) * inverse_mod(p % q, q) % q;
    const Wide y0 = (t - x0 * p) / q;
    const Wide j_low = std::max<Wide>(ceil_div(-x0, q), ceil_div(y0 - (b.count - 1), p));
    const Wide j_high = std::min<Wide>(floor_div(a.count - 1 - x0, q), floor_div(y0, p));
    return j_high < j_low ? 0 : static_cast<int64_t>(j_high - j_low + 1);
  }

  int64_t& budget_;
  std::vector<Counter> counters_;
  std::vector<Wide> reach_;    // the largest sum counters k.. can make
  std::vector<Wide> divisor_;  // the gcd of their steps
};

int64_t stayed_in_box(const StridedBox& box, int bits_a, int bits_b, int64_t& budget) {
  Wide target = static_cast<Wide>(box.destination_base) * bits_b -
                static_cast<Wide>(box.source_base) * bits_a;
  std::vector<Counter> counters;
  int64_t free = 1;  // counters that move both sides alike
  for (const StridedAxis& axis : box.axes) {
    const Wide step = static_cast<Wide>(axis.source_stride) * bits_a -
                      static_cast<Wide>(axis.destination_stride) * bits_b;
    if (step == 0) {
      free *= axis.count;
    } else {
      counters.push_back({axis.count, step});
    }
  }
  return Solver(budget).count(std::move(counters), target) * free;
}

std::optional<MovedElements> count_over_boxes(const IndexMap& a, const IndexMap& b) {
  if (a.digit_form() == nullptr || b.digit_form() == nullptr) return std::nullopt;
  const auto boxes = data_boxes(*a.digit_form(), *b.digit_form(), a.dims());
  if (!boxes) return std::nullopt;
  MovedElements result;
  result.elements = a.logical_elements();
  int64_t budget = kSearchBudget;
  for (const StridedBox& box : *boxes) {
    result.stayed += stayed_in_box(box, a.element_bits(), b.element_bits(), budget);
  }
  result.moved = result.elements - result.stayed;
  result.method = fmt::format("closed form over {} box{} of the common refinement", boxes->size(),
                              boxes->size() == 1 ? "" : "es");
  return result;
}

}  // namespace

bool same_position(int64_t offset_a, int bits_a, int64_t offset_b, int bits_b) {
  return static_cast<Wide>(offset_a) * bits_a == static_cast<Wide>(offset_b) * bits_b;
}

bool element_stays(const IndexMap& a, const IndexMap& b, std::span<const int64_t> index) {
  return same_position(a.linear_index(index), a.element_bits(), b.linear_index(index),
                       b.element_bits());
}

MovedElements count_moved_elements(const IndexMap& a, const IndexMap& b, int64_t walk_limit) {
  if (a.dims() != b.dims()) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("the layouts hold arrays of different dimensions ({} and {}): a "
                            "diff compares two layouts of one array",
                            fmt::join(a.dims(), "x"), fmt::join(b.dims(), "x")));
  }
  if (auto counted = count_over_boxes(a, b)) return *counted;
  if (a.logical_elements() > walk_limit) {
    throw Error(ErrorKind::kUnsupported,
                fmt::format("these layouts have no common refinement (their tiles split a "
                            "dimension at sizes that do not divide each other), and {} elements "
                            "are too many to compare one by one (at most {})",
                            a.logical_elements(), walk_limit));
  }
  MovedElements result;
  result.elements = a.logical_elements();
  // Both walks visit the logical indices in the same (row-major) order.
  LogicalWalker walk_a(a), walk_b(b);
  for (; !walk_a.done(); walk_a.next(), walk_b.next()) {
    result.stayed +=
        same_position(walk_a.offset(), a.element_bits(), walk_b.offset(), b.element_bits());
  }
  result.moved = result.elements - result.stayed;
  result.method = "element by element (the layouts have no common refinement)";
  return result;
}

}  // namespace tessera::relayout
