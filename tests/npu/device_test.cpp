// Spec "Address of Tensor in Local Memory" and the device presets.
#include "tessera/npu/device.h"

#include <gtest/gtest.h>

#include "npu/spec_device.h"
#include "tessera/npu/chip.h"

namespace tessera::npu {
namespace {

using test_support::expect_error;
using test_support::spec_device;

// "the four addresses A = 340, B = 1472, C = 2300 and D = 3088" with X = 4, S = 1024.
TEST(AddressOfTensorInLocalMemory, FourAddresses) {
  const Device device = spec_device();
  EXPECT_EQ(locate(device, 340), (LocalAddress{0, 340, 0}));
  EXPECT_EQ(locate(device, 1472), (LocalAddress{1, 448, 0}));
  EXPECT_EQ(locate(device, 2300), (LocalAddress{2, 252, 0}));
  EXPECT_EQ(locate(device, 3088), (LocalAddress{3, 16, 0}));
}

TEST(AddressOfTensorInLocalMemory, ValidRangeIsZeroToXTimesS) {
  const Device device = spec_device();
  EXPECT_EQ(locate(device, 0), (LocalAddress{0, 0, 0}));
  EXPECT_EQ(locate(device, 4095), (LocalAddress{3, 1023, 0}));
  expect_error(ErrorKind::kOutOfRange, "outside local memory [0, 4096)",
               [&] { locate(device, 4096); });
  expect_error(ErrorKind::kOutOfRange, "address -1", [&] { locate(device, -1); });
}

TEST(AddressOfTensorInLocalMemory, BankOfAnOffset) {
  const Device device = make_device(4, 1024, 128, 8);  // banks of 128 bytes
  EXPECT_EQ(locate(device, 1472).bank, 448 / 128);
  EXPECT_EQ(locate(device, 1023).bank, 7);
  EXPECT_EQ(locate(device, 1024).bank, 0);
}

TEST(DevicePresets, OnePerChipOfTheTable) {
  const auto presets = device_presets();
  const auto chips = chip_table();
  ASSERT_EQ(presets.size(), chips.size());
  ASSERT_EQ(presets.size(), 9u);
  for (std::size_t i = 0; i < chips.size(); ++i) {
    EXPECT_EQ(presets[i].name, chips[i].name);
    EXPECT_EQ(presets[i].npus, chips[i].npus);
    EXPECT_EQ(presets[i].default_copy_rule, chips[i].default_copy_rule);
    EXPECT_EQ(presets[i].matrix_copy_rule, chips[i].matrix_copy_rule);
    EXPECT_EQ(find_chip(chips[i].name), &chips[i]);
  }
  EXPECT_EQ(presets[0].name, "bm1684");
  EXPECT_EQ(presets[0].total_bytes(), 32 * 1024 * 1024);
  EXPECT_EQ(presets[1].bank_bytes(), 16 * 1024);
  // BM1684's copies are the reverse of its successors' (docs/reference/npu-chips.md).
  EXPECT_EQ(presets[0].default_copy_rule, NStrideRule::kChannelsPerNpu);
  EXPECT_EQ(presets[0].matrix_copy_rule, NStrideRule::kIgnoringStartNpu);
  EXPECT_EQ(presets[1].default_copy_rule, NStrideRule::kIgnoringStartNpu);
  EXPECT_EQ(presets[1].matrix_copy_rule, NStrideRule::kChannelsPerNpu);
  EXPECT_EQ(find_chip("bm9999"), nullptr);
  EXPECT_NE(chip_table_markdown().find("| sgtpuv8 | 8 | 64 KiB | 16 |"), std::string::npos);
}

TEST(DevicePresets, InvalidDevicesAreRefused) {
  expect_error(ErrorKind::kInvalid, "number of NPUs must be positive",
               [] { make_device(0, 1024, 128); });
  expect_error(ErrorKind::kInvalid, "local memory size", [] { make_device(4, -1, 128); });
  expect_error(ErrorKind::kInvalid, "alignment must be positive", [] { make_device(4, 1024, 0); });
  expect_error(ErrorKind::kInvalid, "banks must be positive", [] { make_device(4, 1024, 4, 0); });
  expect_error(ErrorKind::kInvalid, "3 banks do not divide", [] { make_device(4, 1024, 4, 3); });
  expect_error(ErrorKind::kOverflow, "overflows",
               [] { make_device(1 << 16, int64_t{1} << 60, 4); });
  expect_error(ErrorKind::kInvalid, "65537 NPUs is more than the 65536",
               [] { make_device(65537, 1024, 4); });
}

// Regression: align=3 and an alignment larger than local memory were accepted; an
// aligned f32 C stride of H*W*4 rounded up to 3 bytes is not a whole number of elements.
TEST(DevicePresets, AlignmentsThatPlaceNothingAreRefused) {
  expect_error(ErrorKind::kInvalid, "alignment must be a power of two (1, 2, 4, ... bytes), got 3",
               [] { make_device(4, 1024, 3); });
  expect_error(ErrorKind::kInvalid,
               "alignment of 2048 bytes is larger than the local memory of 1024",
               [] { make_device(4, 1024, 2048); });
  EXPECT_NO_THROW(make_device(4, 1024, 1024));
  EXPECT_NO_THROW(make_device(4, 1024, 1));
}

}  // namespace
}  // namespace tessera::npu
