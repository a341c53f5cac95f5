#include "tessera/npu/local_tensor.h"

#include <fmt/format.h>

#include <limits>
#include <utility>

#include "local_index_map.h"
#include "tessera/checked_arithmetic.h"
#include "tessera/error.h"

namespace tessera::npu {
namespace {

constexpr const char* kAxisNames[4] = {"N", "C", "H", "W"};

void check_shape(const TensorShape& shape) {
  for (int axis = 0; axis < 4; ++axis) {
    if (shape[axis] < 1) {
      throw Error(ErrorKind::kInvalid, fmt::format("dimension {} is {}: every dimension of "
                                                   "(N,C,H,W) must be at least 1",
                                                   kAxisNames[axis], shape[axis]));
    }
  }
}

int64_t checked_element_bytes(ElementType type) {
  const int bits = default_storage_bits(type);
  if (bit_width(type) != bits || bits % 8 != 0) {
    throw Error(ErrorKind::kUnsupported,
                fmt::format("{} is a sub-byte type; local memory layouts are modelled for whole-"
                            "byte types (s8, u8, s16, u16, f16, bf16, s32, u32, f32, ...)",
                            element_type_name(type)));
  }
  return bits / 8;
}

}  // namespace

LocalTensor::LocalTensor(Device device, TensorShape shape, ElementType type, int64_t address,
                         LocalLayout layout, StorageMode mode)
    : device_(std::move(device)),
      shape_(shape),
      type_(type),
      address_(address),
      layout_(layout),
      mode_(mode),
      start_(locate(device_, address)) {
  check_shape(shape_);
  if (layout_.gdma) {
    layout_.kind = LayoutKind::kAligned;
    layout_.n_stride_rule = device_.default_copy_rule;
  } else if (mode_ == StorageMode::k4N && layout_.kind == LayoutKind::kAligned &&
             layout_.n_stride_rule == NStrideRule::kChannelsPerNpu) {
    // The aligned 4N layout is the one the chip's own 4N conversion reads (chip.h).
    layout_.n_stride_rule = device_.four_n_rule;
  }
  element_bytes_ = checked_element_bytes(type_);
  check_storage_mode(mode_, type_);
  stored_shape_ = npu::stored_shape(mode_, shape_);
  channels_per_npu_ = npu::channels_per_npu(start_.npu, shape_[1], device_.npus);
  check_address();
  derive_strides();
  check_extent();
  // Derived layouts never overlap (with the GDMA rule an NPU's channel rows still fit in its
  // ceil(C/X) rows per batch); explicit strides are checked.
  if (layout_.kind == LayoutKind::kStrides && !detail::strides_nest(*this)) {
    detail::check_no_overlap(*this);
  }
}

void LocalTensor::check_address() const {
  if (device_.local_memory_bytes % element_bytes_ != 0) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("the local memory size {} is not a multiple of the {}-byte element",
                            device_.local_memory_bytes, element_bytes_));
  }
  const int64_t offset = start_.offset;
  if (layout_.kind == LayoutKind::kAligned && offset % device_.alignment_bytes != 0) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("aligned layout needs an offset that is a multiple of {} bytes, but "
                            "address {} is offset {} of NPU {}",
                            device_.alignment_bytes, address_, offset, start_.npu));
  }
  if (layout_.kind == LayoutKind::kCompact && offset % 4 != 0) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("compact layout needs a 4-byte aligned offset, but address {} is "
                            "offset {} of NPU {}",
                            address_, offset, start_.npu));
  }
  // Packed modes store 32-bit words (64-bit for 2IC, whose f32 halves are word aligned).
  const int64_t needed = mode_ == StorageMode::kNone ? element_bytes_ : 4;
  if (offset % needed != 0) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("address {} (offset {} of NPU {}) is not a multiple of the {}-byte {}",
                            address_, offset, start_.npu, needed, stored_type_name(mode_, type_)));
  }
}

void LocalTensor::derive_strides() {
  const int64_t stored_bytes = stored_element_bytes();
  const int64_t hw = checked_multiply(stored_shape_[2], stored_shape_[3], "H*W");
  switch (layout_.kind) {
    case LayoutKind::kStrides:
      strides_ = layout_.strides;
      for (int axis = 0; axis < 4; ++axis) {
        if (strides_[axis] < 0) {
          throw Error(ErrorKind::kInvalid,
                      fmt::format("{} stride is {}: strides must not be negative", kAxisNames[axis],
                                  strides_[axis]));
        }
      }
      return;
    case LayoutKind::kAligned:
      strides_[1] = aligned_c_stride(hw, stored_bytes, device_.alignment_bytes);
      break;
    case LayoutKind::kCompact:
      strides_[1] = hw;
      break;
  }
  strides_[3] = 1;
  strides_[2] = stored_shape_[3];
  const int64_t rows = layout_.n_stride_rule == NStrideRule::kChannelsPerNpu
                           ? channels_per_npu_
                           : npu::channels_per_npu(0, shape_[1], device_.npus);
  strides_[0] = checked_multiply(strides_[1], rows, "the N stride");
}

void LocalTensor::check_extent() {
  // Every stride is reported in bytes too (derived ones included), even on an axis of extent 1
  // whose span it never reaches, so its byte value must be representable.
  for (int axis = 0; axis < 4; ++axis) {
    if (strides_[axis] > std::numeric_limits<int64_t>::max() / stored_element_bytes()) {
      throw Error(ErrorKind::kOverflow,
                  fmt::format("{} stride is {} stored elements: at {} bytes "
                              "each it overflows 64-bit byte offsets",
                              kAxisNames[axis], strides_[axis], stored_element_bytes()));
    }
  }
  // The last stored element of the busiest NPU: every axis at its largest value (strides are
  // non-negative), the channel row being the last one, on NPU (Q + C - 1) mod X.
  const int64_t extents[4] = {stored_shape_[0], channels_per_npu_, stored_shape_[2],
                              stored_shape_[3]};
  int64_t last = 0;
  for (int axis = 0; axis < 4; ++axis) {
    last = checked_add(last, checked_multiply(extents[axis] - 1, strides_[axis], "a stride's span"),
                       "the tensor's span");
  }
  reserved_bytes_ = checked_multiply(checked_add(last, 1, "the tensor's span"),
                                     stored_element_bytes(), "the tensor's span in bytes");
  const int64_t end = checked_add(start_.offset, reserved_bytes_, "the tensor's end");
  checked_add(end, device_.total_bytes(), "the tensor's end address");
  overrun_bytes_ = end > device_.local_memory_bytes ? end - device_.local_memory_bytes : 0;
}

int64_t LocalTensor::npu_of_channel(int64_t channel) const {
  return (start_.npu + channel) % device_.npus;
}

int64_t LocalTensor::row_of_channel(int64_t channel) const {
  return (start_.npu + channel) / device_.npus;
}

void LocalTensor::check_fits() const {
  if (!fits()) {
    throw Error(
        ErrorKind::kDoesNotFit,
        fmt::format("the tensor runs past the end of local memory by {} bytes: it needs "
                    "{} bytes from offset {} in an NPU of {} bytes",
                    overrun_bytes_, reserved_bytes_, start_.offset, device_.local_memory_bytes));
  }
}

const IndexMap& LocalTensor::index_map() const {
  check_fits();
  std::call_once(index_map_cache_->once,
                 [this] { index_map_cache_->map = detail::compile_index_map(*this); });
  return *index_map_cache_->map;
}

ElementPlace LocalTensor::place(std::span<const int64_t> index) const {
  if (index.size() != 4) {
    throw Error(
        ErrorKind::kOutOfRange,
        fmt::format("index has {} components but a local tensor has 4 (n,c,h,w)", index.size()));
  }
  for (int axis = 0; axis < 4; ++axis) {
    if (index[axis] < 0 || index[axis] >= shape_[axis]) {
      throw Error(ErrorKind::kOutOfRange,
                  fmt::format("index component {} is {}, outside [0, {}) of dimension {}",
                              kAxisNames[axis], index[axis], shape_[axis], kAxisNames[axis]));
    }
  }
  check_fits();
  // The formula directly: the same offsets as index_map() (property-tested), without building
  // an inverse table for interleaved strides.
  const auto [npu, byte] =
      detail::PlacementFormula(*this).npu_and_byte({index[0], index[1], index[2], index[3]});
  return {npu, byte, npu * device_.local_memory_bytes + byte};
}

}  // namespace tessera::npu
