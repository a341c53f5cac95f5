#include "tessera/npu/device.h"

#include <fmt/format.h>

#include <utility>
#include <vector>

#include "tessera/checked_arithmetic.h"
#include "tessera/error.h"
#include "tessera/npu/chip.h"

namespace tessera::npu {

Device make_device(int64_t npus, int64_t local_memory_bytes, int64_t alignment_bytes, int64_t banks,
                   std::string name) {
  const auto require_positive = [](int64_t value, const char* what) {
    if (value <= 0) {
      throw Error(ErrorKind::kInvalid, fmt::format("{} must be positive, got {}", what, value));
    }
  };
  require_positive(npus, "the number of NPUs");
  require_positive(local_memory_bytes, "the local memory size per NPU");
  require_positive(alignment_bytes, "the alignment");
  require_positive(banks, "the number of banks");
  if (npus > kMaxNpus) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("{} NPUs is more than the {} tessera models", npus, kMaxNpus));
  }
  // An aligned C stride is H*W*bytes rounded up to the alignment and counted in elements: with
  // align=3 a 4-byte element's stride would not be a whole number of elements, and an alignment
  // past the end of local memory places nothing. Every device has a power of two.
  if ((alignment_bytes & (alignment_bytes - 1)) != 0) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("the alignment must be a power of two (1, 2, 4, ... bytes), got {}",
                            alignment_bytes));
  }
  if (alignment_bytes > local_memory_bytes) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("the alignment of {} bytes is larger than the local memory of {} "
                            "bytes per NPU",
                            alignment_bytes, local_memory_bytes));
  }
  if (local_memory_bytes % banks != 0) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("{} banks do not divide the local memory of {} bytes", banks,
                            local_memory_bytes));
  }
  checked_multiply(npus, local_memory_bytes, "the local memory size of all NPUs");
  return Device{std::move(name), npus, local_memory_bytes, alignment_bytes, banks};
}

std::span<const Device> device_presets() {
  static const std::vector<Device> presets = [] {
    std::vector<Device> all;
    for (const ChipRecord& chip : chip_table()) {
      Device device = make_device(chip.npus, chip.local_memory_bytes, chip.alignment_bytes,
                                  chip.banks, std::string(chip.name));
      device.default_copy_rule = chip.default_copy_rule;
      device.matrix_copy_rule = chip.matrix_copy_rule;
      device.four_n_rule = chip.four_n_rule;
      all.push_back(std::move(device));
    }
    return all;
  }();
  return presets;
}

LocalAddress locate(const Device& device, int64_t address) {
  if (address < 0 || address >= device.total_bytes()) {
    throw Error(ErrorKind::kOutOfRange,
                fmt::format("address {} is outside local memory [0, {}) of {} NPUs x {} bytes",
                            address, device.total_bytes(), device.npus, device.local_memory_bytes));
  }
  const int64_t offset = address % device.local_memory_bytes;
  return {address / device.local_memory_bytes, offset, offset / device.bank_bytes()};
}

}  // namespace tessera::npu
