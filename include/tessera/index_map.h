// IndexMap: the one canonical form every layout family compiles into (docs/design/index-map.md).
//
// An IndexMap is a function from a logical index (e_0, ..., e_{r-1}) of an array with dims
// (d_0, ..., d_{r-1}) to an element offset in a buffer of `size_elements()` elements of
// `element_bits()` bits each; every offset of the buffer is either exactly one element or padding.
//
// Most layouts also have a *digit form*: each logical index value v = e_i + origin_i is split into
// mixed-radix digits, and every digit adds `digit_value * stride` to the offset:
//
//   offset(e) = base + sum over digits k of ((e[dim_k] + origin[dim_k]) / weight_k % extent_k)
//                                              * stride_k
//
// Example: f32[3,5]{1,0:T(2,2)} (the tiled layout spec's Figure 1) has dims (3,5) and digits
//   dim 0: weight 2 extent 2 stride 12 (tile row), weight 1 extent 2 stride 2 (row in tile)
//   dim 1: weight 2 extent 3 stride 4 (tile column), weight 1 extent 2 stride 1 (column in tile)
// so element (2,3) is at 1*12 + 0*2 + 1*4 + 1*1 = 17, and the buffer holds 24 elements, 9 of them
// padding. Positions whose digits compose a value outside [origin, origin + d) are padding.
// The NPU family uses origins: a tensor starting at NPU q shifts its channel axis by q.
//
// The digit form is what the relayout engine and the walkers stand on; layouts without one
// (XLA combined dimensions whose tile does not factor) provide an IndexFunction instead.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tessera {

// One axis of the digit form.
struct Digit {
  int dimension = 0;   // logical dimension, or kPaddingAxis: an axis only whose value 0 is data
  int64_t weight = 1;  // what one step of this digit adds to e[dimension] + origin[dimension]
  int64_t extent = 1;  // number of values the digit takes
  int64_t stride = 0;  // elements between two consecutive values in the buffer

  static constexpr int kPaddingAxis = -1;
  bool operator==(const Digit&) const = default;
};

struct DigitForm {
  std::vector<Digit> digits;     // in physical order, most major first, extent-1 digits dropped
  std::vector<int64_t> origins;  // per logical dimension; zero for XLA layouts
  int64_t base = 0;              // offset of the position whose digits are all zero
};

// The general form of a layout: used when there is no digit form.
class IndexFunction {
 public:
  virtual ~IndexFunction() = default;
  // The offset of a valid logical index.
  virtual int64_t offset_of(std::span<const int64_t> index) const = 0;
  // The logical index at offset in [0, size), or nullopt for padding.
  virtual std::optional<std::vector<int64_t>> index_at(int64_t offset) const = 0;
};

class IndexMap {
 public:
  // A layout with a digit form. Throws Error(kInvalid) if the digits are not a valid digit form:
  // per dimension, weights must form an exact mixed radix (1, extent_0, extent_0*extent_1, ...)
  // whose top digit covers origin + d, and the positions must not overlap or leave the buffer.
  IndexMap(std::vector<int64_t> dims, int element_bits, int64_t size_elements, DigitForm form);
  // A layout given by a function (and optionally also a digit form used for fast paths).
  IndexMap(std::vector<int64_t> dims, int element_bits, int64_t size_elements,
           std::shared_ptr<const IndexFunction> function);

  const std::vector<int64_t>& dims() const { return dims_; }
  int rank() const { return static_cast<int>(dims_.size()); }
  int element_bits() const { return element_bits_; }
  // The buffer extent in elements, padding included.
  int64_t size_elements() const { return size_elements_; }
  // ceil(size_elements * element_bits / 8).
  int64_t size_bytes() const { return size_bytes_; }
  // Product of dims.
  int64_t logical_elements() const { return logical_elements_; }

  // The offset of a logical index. Throws Error(kOutOfRange) naming the offending dimension if
  // the index has the wrong rank or a component outside [0, d).
  int64_t linear_index(std::span<const int64_t> index) const;
  // The logical index stored at `offset`, or nullopt when that element is padding.
  // Throws Error(kOutOfRange) when offset is negative or >= size_elements().
  std::optional<std::vector<int64_t>> logical_index(int64_t offset) const;

  // The digit form, or nullptr when the layout has none.
  const DigitForm* digit_form() const { return digit_form_ ? &*digit_form_ : nullptr; }

  // Throws Error(kOutOfRange) unless `index` is a valid logical index (right rank, in range).
  void check_index(std::span<const int64_t> index) const;

 private:
  int64_t digit_offset(std::span<const int64_t> index) const;
  std::optional<std::vector<int64_t>> digit_index(int64_t offset) const;
  void validate_digit_form() const;

  std::vector<int64_t> dims_;
  int element_bits_ = 8;
  int64_t size_elements_ = 0;
  int64_t size_bytes_ = 0;
  int64_t logical_elements_ = 0;
  std::optional<DigitForm> digit_form_;
  std::vector<Digit> digits_by_stride_;  // for the inverse: largest stride first
  std::shared_ptr<const IndexFunction> function_;
};

// Visits every element in logical row-major order with its offset. With a digit form each step
// is a few additions (mixed-radix counters per dimension), no division: this is what relayout
// fallbacks and reports stand on.
//
//   for (LogicalWalker walk(map); !walk.done(); walk.next()) use(walk.index(), walk.offset());
class LogicalWalker {
 public:
  explicit LogicalWalker(const IndexMap& map);
  bool done() const { return done_; }
  std::span<const int64_t> index() const { return index_; }
  int64_t offset() const { return offset_; }
  void next();

 private:
  struct Counter {
    int64_t stride;
    int64_t extent;
    int64_t value;
  };
  void reset_dimension(int dim);

  const IndexMap& map_;
  bool done_ = false;
  std::vector<int64_t> index_;
  int64_t offset_ = 0;
  // Digit-form state: per dimension, its digits from least to most significant.
  std::vector<std::vector<Counter>> counters_;
  std::vector<std::vector<int64_t>> initial_values_;
  std::vector<int64_t> dimension_part_;  // the offset contributed by each dimension
  std::vector<int64_t> initial_part_;
};

}  // namespace tessera
