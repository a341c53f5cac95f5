// Storage modes (spec: "Storage Modes"): 4N, 2N and 2IC pack consecutive elements of the first
// axis into one wider stored element; strides and shape are then counted in the packed type.
//
// The spec's 2N example says the stored element holds "an int8 element"; the tensor is int16 and
// tessera follows the text (16-bit halves). Example: s8[6,5,4,5] in 4N is stored as s8x4[2,5,4,5];
// element (5,0,0,0) is byte 5 mod 4 = 1 of the stored element (1,0,0,0), and bytes 2 and 3 of that
// stored element are dummies.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "tessera/element_type.h"

namespace tessera::npu {

enum class StorageMode {
  kNone,  // one stored element per element
  k4N,    // 8-bit types: n = 4m..4m+3 share one 32-bit element, byte n mod 4
  k2N,    // 16-bit types: n = 2m, 2m+1 share one 32-bit element, halfword n mod 2
  k2IC,   // f32 convolution weights [I,O,H,W]: i = 2j, 2j+1 share one 64-bit element
};

// "none", "4N", "2N", "2IC".
std::string_view storage_mode_name(StorageMode mode);

// Elements packed into one stored element: 1, 4, 2, 2.
int64_t packing_factor(StorageMode mode);

// Throws Error(kInvalid) when the mode does not apply to the type: 4N needs an 8-bit type, 2N a
// 16-bit type, 2IC f32. Example: check_storage_mode(StorageMode::k4N, ElementType::kS16) throws.
void check_storage_mode(StorageMode mode, ElementType type);

// The stored type's name: "s8x4", "u16x2", "f32x2"; the element type's name for kNone.
std::string stored_type_name(StorageMode mode, ElementType type);

// The shape in stored elements: the first axis becomes ceil(N / packing_factor).
// Example: (3,5,4,5) in 2N -> (2,5,4,5).
std::array<int64_t, 4> stored_shape(StorageMode mode, const std::array<int64_t, 4>& shape);

}  // namespace tessera::npu
