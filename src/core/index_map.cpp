#include "tessera/index_map.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>

#include "tessera/checked_arithmetic.h"
#include "tessera/error.h"

namespace tessera {
namespace {

int64_t product(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n = checked_multiply(n, d, "the number of elements");
  return n;
}

void check_common(const std::vector<int64_t>& dims, int element_bits, int64_t size_elements) {
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) {
      throw Error(ErrorKind::kInvalid,
                  fmt::format("dimension {} has negative size {}", i, dims[i]));
    }
  }
  if (element_bits <= 0) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("element size {} bits is not positive", element_bits));
  }
  if (size_elements < 0) {
    throw Error(ErrorKind::kInvalid, "negative buffer size");
  }
}

}  // namespace

IndexMap::IndexMap(std::vector<int64_t> dims, int element_bits, int64_t size_elements,
                   DigitForm form)
    : dims_(std::move(dims)), element_bits_(element_bits), size_elements_(size_elements) {
  check_common(dims_, element_bits_, size_elements_);
  logical_elements_ = product(dims_);
  size_bytes_ = bytes_for_bits(size_elements_, element_bits_);
  if (form.origins.empty()) form.origins.assign(dims_.size(), 0);
  std::erase_if(form.digits, [](const Digit& d) { return d.extent == 1; });
  digit_form_ = std::move(form);
  validate_digit_form();
  digits_by_stride_ = digit_form_->digits;
  std::stable_sort(digits_by_stride_.begin(), digits_by_stride_.end(),
                   [](const Digit& a, const Digit& b) { return a.stride > b.stride; });
}

IndexMap::IndexMap(std::vector<int64_t> dims, int element_bits, int64_t size_elements,
                   std::shared_ptr<const IndexFunction> function)
    : dims_(std::move(dims)),
      element_bits_(element_bits),
      size_elements_(size_elements),
      function_(std::move(function)) {
  check_common(dims_, element_bits_, size_elements_);
  logical_elements_ = product(dims_);
  size_bytes_ = bytes_for_bits(size_elements_, element_bits_);
}

void IndexMap::validate_digit_form() const {
  const DigitForm& form = *digit_form_;
  const int r = rank();
  if (static_cast<int>(form.origins.size()) != r) {
    throw Error(ErrorKind::kInvalid, "digit form: one origin per dimension is required");
  }
  for (const Digit& d : form.digits) {
    if (d.dimension != Digit::kPaddingAxis && (d.dimension < 0 || d.dimension >= r)) {
      throw Error(ErrorKind::kInvalid, fmt::format("digit form: no dimension {}", d.dimension));
    }
    if (d.extent < 1 || d.weight < 1 || d.stride < 1) {
      throw Error(ErrorKind::kInvalid, "digit form: extents, weights and strides must be positive");
    }
  }
  // Per dimension the digits must be an exact mixed radix that covers [origin, origin + d).
  for (int dim = 0; dim < r; ++dim) {
    std::vector<Digit> mine;
    for (const Digit& d : form.digits) {
      if (d.dimension == dim) mine.push_back(d);
    }
    std::sort(mine.begin(), mine.end(),
              [](const Digit& a, const Digit& b) { return a.weight < b.weight; });
    int64_t expected_weight = 1;
    for (const Digit& d : mine) {
      if (d.weight != expected_weight) {
        throw Error(ErrorKind::kInvalid,
                    fmt::format("digit form: dimension {} has a digit of weight {} where {} was "
                                "expected",
                                dim, d.weight, expected_weight));
      }
      expected_weight = checked_multiply(d.weight, d.extent, "a digit's span");
    }
    const int64_t needed = checked_add(form.origins[dim], dims_[dim], "origin + dimension");
    if (logical_elements_ > 0 && expected_weight < needed) {
      throw Error(ErrorKind::kInvalid,
                  fmt::format("digit form: the digits of dimension {} cover {} values, {} needed",
                              dim, expected_weight, needed));
    }
  }
  // Positions must be nested (each stride exceeds the span of all smaller ones), which makes
  // the map injective and its inverse a greedy division; and they must lie in the buffer.
  std::vector<Digit> by_stride = form.digits;
  std::sort(by_stride.begin(), by_stride.end(),
            [](const Digit& a, const Digit& b) { return a.stride < b.stride; });
  int64_t span = 0;  // largest offset reachable with the digits seen so far
  for (const Digit& d : by_stride) {
    if (d.stride <= span) {
      throw Error(
          ErrorKind::kInvalid,
          fmt::format("digit form: a digit of stride {} overlaps smaller digits spanning {}",
                      d.stride, span + 1));
    }
    span = checked_add(span, checked_multiply(d.extent - 1, d.stride, "a digit's span"),
                       "the layout's span");
  }
  if (logical_elements_ > 0 &&
      checked_add(form.base, span, "the layout's span") >= size_elements_) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("digit form: positions reach offset {}, past the buffer of {} elements",
                            form.base + span, size_elements_));
  }
}

void IndexMap::check_index(std::span<const int64_t> index) const {
  if (static_cast<int>(index.size()) != rank()) {
    throw Error(
        ErrorKind::kOutOfRange,
        fmt::format("index has {} components but the array has rank {}", index.size(), rank()));
  }
  for (int i = 0; i < rank(); ++i) {
    if (index[i] < 0 || index[i] >= dims_[i]) {
      throw Error(ErrorKind::kOutOfRange,
                  fmt::format("index component {} is {}, outside [0, {}) of dimension {}", i,
                              index[i], dims_[i], i));
    }
  }
}

int64_t IndexMap::linear_index(std::span<const int64_t> index) const {
  check_index(index);
  if (digit_form_) return digit_offset(index);
  return function_->offset_of(index);
}

int64_t IndexMap::digit_offset(std::span<const int64_t> index) const {
  const DigitForm& form = *digit_form_;
  int64_t offset = form.base;
  for (const Digit& d : form.digits) {
    if (d.dimension == Digit::kPaddingAxis) continue;
    const int64_t v = index[d.dimension] + form.origins[d.dimension];
    offset += (v / d.weight % d.extent) * d.stride;
  }
  return offset;
}

std::optional<std::vector<int64_t>> IndexMap::logical_index(int64_t offset) const {
  if (offset < 0 || offset >= size_elements_) {
    throw Error(ErrorKind::kOutOfRange,
                fmt::format("offset {} is outside the layout's {} elements [0, {})", offset,
                            size_elements_, size_elements_));
  }
  if (digit_form_) return digit_index(offset);
  return function_->index_at(offset);
}

std::optional<std::vector<int64_t>> IndexMap::digit_index(int64_t offset) const {
  const DigitForm& form = *digit_form_;
  int64_t rest = offset - form.base;
  if (rest < 0) return std::nullopt;
  std::vector<int64_t> value(dims_.size(), 0);  // e + origin, from the digits
  for (const Digit& d : digits_by_stride_) {
    const int64_t q = rest / d.stride;
    if (q >= d.extent) return std::nullopt;
    rest -= q * d.stride;
    if (d.dimension == Digit::kPaddingAxis) {
      if (q != 0) return std::nullopt;
    } else {
      value[d.dimension] += q * d.weight;
    }
  }
  if (rest != 0) return std::nullopt;
  for (int i = 0; i < rank(); ++i) {
    value[i] -= form.origins[i];
    if (value[i] < 0 || value[i] >= dims_[i]) return std::nullopt;
  }
  return value;
}

LogicalWalker::LogicalWalker(const IndexMap& map) : map_(map), index_(map.rank(), 0) {
  if (map.logical_elements() == 0) {
    done_ = true;
    return;
  }
  const DigitForm* form = map.digit_form();
  if (form == nullptr) {
    offset_ = map.linear_index(index_);
    return;
  }
  const int r = map.rank();
  counters_.resize(r);
  initial_values_.resize(r);
  dimension_part_.assign(r, 0);
  for (int dim = 0; dim < r; ++dim) {
    std::vector<Digit> mine;
    for (const Digit& d : form->digits) {
      if (d.dimension == dim) mine.push_back(d);
    }
    std::sort(mine.begin(), mine.end(),
              [](const Digit& a, const Digit& b) { return a.weight < b.weight; });
    for (const Digit& d : mine) {
      const int64_t value = form->origins[dim] / d.weight % d.extent;
      counters_[dim].push_back({d.stride, d.extent, value});
      initial_values_[dim].push_back(value);
      dimension_part_[dim] += value * d.stride;
    }
  }
  initial_part_ = dimension_part_;
  offset_ = form->base;
  for (int64_t part : dimension_part_) offset_ += part;
}

void LogicalWalker::reset_dimension(int dim) {
  index_[dim] = 0;
  offset_ += initial_part_[dim] - dimension_part_[dim];
  dimension_part_[dim] = initial_part_[dim];
  for (std::size_t k = 0; k < counters_[dim].size(); ++k) {
    counters_[dim][k].value = initial_values_[dim][k];
  }
}

void LogicalWalker::next() {
  const bool digits = map_.digit_form() != nullptr;
  for (int dim = map_.rank() - 1; dim >= 0; --dim) {
    if (++index_[dim] < map_.dims()[dim]) {
      if (!digits) {
        offset_ = map_.linear_index(index_);
        return;
      }
      for (Counter& c : counters_[dim]) {  // a mixed-radix increment: no division
        offset_ += c.stride;
        dimension_part_[dim] += c.stride;
        if (++c.value < c.extent) break;
        offset_ -= c.extent * c.stride;
        dimension_part_[dim] -= c.extent * c.stride;
        c.value = 0;
      }
      return;
    }
    if (digits) {
      reset_dimension(dim);
    } else {
      index_[dim] = 0;
    }
  }
  done_ = true;
}

}  // namespace tessera
