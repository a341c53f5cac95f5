// A 4D tensor in an NPU chip's local memory, compiled into tessera's IndexMap
// (docs/design/index-map.md: the start NPU shifts the channel axis, the channel axis splits into
// (row, NPU), strides place the rest).
//
// Example (spec "128-Byte Aligned Layout", X=4, S=1024, alignment 128): f32 (2,3,4,5) at address
// 2048 (NPU 2) has C stride 32, 2 channels per NPU and N stride 64; element (1,2,0,0) is channel
// 2 -> NPU (2+2) mod 4 = 0, channel row 1, so it sits at byte (1*64 + 1*32) * 4 = 384 of NPU 0.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>

#include "tessera/element_type.h"
#include "tessera/index_map.h"
#include "tessera/npu/device.h"
#include "tessera/npu/local_layout.h"
#include "tessera/npu/storage_mode.h"

namespace tessera::npu {

// Where one element lives: its NPU, the byte offset of its first byte inside that NPU's local
// memory, and the same byte as a local memory address (npu * S + byte_offset).
struct ElementPlace {
  int64_t npu = 0;
  int64_t byte_offset = 0;
  int64_t address = 0;
  bool operator==(const ElementPlace&) const = default;
};

class LocalTensor {
 public:
  // Validates everything and throws tessera::Error with a message saying what is wrong:
  // kInvalid for a dim < 1, a storage mode the type does not allow, a sub-byte type, an address
  // the layout does not allow (aligned: offset a multiple of the device alignment; compact:
  // a multiple of 4; any layout: a multiple of the element size, and of 4 with a storage mode),
  // negative strides or strides that make elements overlap; kOutOfRange for an address outside
  // [0, X*S); kOverflow when a size does not fit in 64 bits; kUnsupported for strides that
  // interleave without overlapping on a tensor too large to check element by element.
  // A tensor that runs past the end of local memory is still constructed (fits() is false) so
  // that reports can say by how much; index_map() and place() refuse it.
  LocalTensor(Device device, TensorShape shape, ElementType type, int64_t address,
              LocalLayout layout, StorageMode mode = StorageMode::kNone);

  const Device& device() const { return device_; }
  const TensorShape& shape() const { return shape_; }
  ElementType element_type() const { return type_; }
  int64_t address() const { return address_; }
  const LocalAddress& start() const { return start_; }  // (Q, R)
  const LocalLayout& layout() const { return layout_; }
  StorageMode storage_mode() const { return mode_; }

  int64_t element_bytes() const { return element_bytes_; }
  int64_t stored_element_bytes() const { return element_bytes_ * packing_factor(mode_); }
  // The shape in stored elements: (ceil(N / packing), C, H, W).
  const TensorShape& stored_shape() const { return stored_shape_; }
  // (N, C, H, W) strides in stored elements (derived from the layout, or as given).
  const Strides& strides() const { return strides_; }
  // ceil((Q + C) / X): channel rows each NPU reserves per batch.
  int64_t channels_per_npu() const { return channels_per_npu_; }

  // NPU (Q + c) mod X and channel row (Q + c) / X of channel c.
  int64_t npu_of_channel(int64_t channel) const;
  int64_t row_of_channel(int64_t channel) const;

  // Bytes from the start offset R to the last byte of the busiest NPU: the band of local memory
  // the tensor needs in every NPU it spans. fits() == (R + bytes_reserved_per_npu() <= S).
  int64_t bytes_reserved_per_npu() const { return reserved_bytes_; }
  bool fits() const { return overrun_bytes_ == 0; }
  // How many bytes the tensor runs past the end of an NPU's local memory (0 when it fits).
  int64_t overrun_bytes() const { return overrun_bytes_; }

  // The map from (n, c, h, w) to the element offset in the whole local memory image of X*S
  // bytes, in units of the element type (for 4N/2N the 8/16-bit element, for 2IC f32).
  // Throws Error(kDoesNotFit) saying by how many bytes the tensor runs past local memory, and
  // Error(kUnsupported) for interleaved (non-nested, non-overlapping) strides on more than 2^22
  // elements, whose map needs an inverse table.
  const IndexMap& index_map() const;
  // Throws Error(kOutOfRange) for a wrong rank or a component outside the shape, and
  // Error(kDoesNotFit) like index_map().
  ElementPlace place(std::span<const int64_t> index) const;

 private:
  void derive_strides();
  void check_address() const;
  void check_extent();
  void check_fits() const;

  Device device_;
  TensorShape shape_;
  ElementType type_;
  int64_t address_;
  LocalLayout layout_;
  StorageMode mode_;
  LocalAddress start_;
  int64_t element_bytes_ = 1;
  TensorShape stored_shape_{};
  Strides strides_{};
  int64_t channels_per_npu_ = 1;
  int64_t reserved_bytes_ = 0;
  int64_t overrun_bytes_ = 0;
  // Built on first use and shared by copies: compiling interleaved strides walks every element.
  struct IndexMapCache {
    std::once_flag once;
    std::shared_ptr<const IndexMap> map;
  };
  std::shared_ptr<IndexMapCache> index_map_cache_ = std::make_shared<IndexMapCache>();
};

}  // namespace tessera::npu
