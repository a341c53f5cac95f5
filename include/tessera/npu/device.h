// A many-NPU chip's local memory (docs/design/npu-local-memory.md, "Addresses").
//
// X NPUs each own S bytes of local memory; the whole local memory is one address space of X*S
// bytes in which address A is byte R = A mod S of NPU Q = A / S. Example (the spec's X=4,
// S=1024): locate(device, 1472) == {npu 1, offset 448}.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "tessera/npu/local_layout.h"

namespace tessera::npu {

struct Device {
  std::string name;                // preset name, or "custom"
  int64_t npus = 0;                // X
  int64_t local_memory_bytes = 0;  // S, per NPU
  int64_t alignment_bytes = 0;     // EU alignment of the aligned layout's C stride and address
  int64_t banks = 1;               // local memory banks per NPU (bank of offset R: R / (S/banks))
  // Channel rows of the chip's own copies (chip.h): the default GDMA copy (layout "gdma"), the
  // matrix copy and the 4N conversion (the aligned layout in 4N mode). A custom device follows
  // the specification in all three.
  NStrideRule default_copy_rule = NStrideRule::kChannelsPerNpu;
  NStrideRule matrix_copy_rule = NStrideRule::kChannelsPerNpu;
  NStrideRule four_n_rule = NStrideRule::kChannelsPerNpu;

  int64_t total_bytes() const { return npus * local_memory_bytes; }  // X*S, checked at creation
  int64_t bank_bytes() const { return local_memory_bytes / banks; }
  bool operator==(const Device&) const = default;
};

// Reports hold one entry per NPU, so the count is bounded (real chips have 32 or 64).
inline constexpr int64_t kMaxNpus = 65536;

// A validated device. Throws Error(kInvalid) when a count is not positive, npus > kMaxNpus or
// `banks` does not divide `local_memory_bytes`, Error(kOverflow) when X*S does not fit in 64 bits.
// Example: make_device(4, 1024, 128) is the spec's illustration device with one bank.
Device make_device(int64_t npus, int64_t local_memory_bytes, int64_t alignment_bytes,
                   int64_t banks = 1, std::string name = "custom");

// One device per chip of chip_table() (chip.h), in its order: bm1684, bm1684x, ...
std::span<const Device> device_presets();

// Where address A lives: NPU Q = A / S, offset R = A mod S, bank R / (S / banks).
struct LocalAddress {
  int64_t npu = 0;
  int64_t offset = 0;
  int64_t bank = 0;
  bool operator==(const LocalAddress&) const = default;
};

// Throws Error(kOutOfRange) unless 0 <= address < X*S.
// Example (X=4, S=1024): 340 -> (0, 340), 1472 -> (1, 448), 2300 -> (2, 252), 3088 -> (3, 16).
LocalAddress locate(const Device& device, int64_t address);

}  // namespace tessera::npu
