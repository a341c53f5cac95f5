#include "tessera/npu/storage_mode.h"

#include <fmt/format.h>

#include "tessera/checked_arithmetic.h"
#include "tessera/error.h"

namespace tessera::npu {

std::string_view storage_mode_name(StorageMode mode) {
  switch (mode) {
    case StorageMode::kNone:
      return "none";
    case StorageMode::k4N:
      return "4N";
    case StorageMode::k2N:
      return "2N";
    case StorageMode::k2IC:
      return "2IC";
  }
  return "none";
}

int64_t packing_factor(StorageMode mode) {
  switch (mode) {
    case StorageMode::kNone:
      return 1;
    case StorageMode::k4N:
      return 4;
    case StorageMode::k2N:
      return 2;
    case StorageMode::k2IC:
      return 2;
  }
  return 1;
}

void check_storage_mode(StorageMode mode, ElementType type) {
  const int bits = bit_width(type);
  const auto refuse = [&](const char* needed) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("storage mode {} needs {}, not {} ({} bits)", storage_mode_name(mode),
                            needed, element_type_name(type), bits));
  };
  switch (mode) {
    case StorageMode::kNone:
      return;
    case StorageMode::k4N:
      if (bits != 8) refuse("an 8-bit type (s8, u8)");
      return;
    case StorageMode::k2N:
      if (bits != 16) refuse("a 16-bit type (s16, u16, f16, bf16)");
      return;
    case StorageMode::k2IC:
      if (type != ElementType::kF32) refuse("f32 convolution weights");
      return;
  }
}

std::string stored_type_name(StorageMode mode, ElementType type) {
  if (mode == StorageMode::kNone) return std::string(element_type_name(type));
  return fmt::format("{}x{}", element_type_name(type), packing_factor(mode));
}

std::array<int64_t, 4> stored_shape(StorageMode mode, const std::array<int64_t, 4>& shape) {
  return {ceil_divide(shape[0], packing_factor(mode)), shape[1], shape[2], shape[3]};
}

}  // namespace tessera::npu
