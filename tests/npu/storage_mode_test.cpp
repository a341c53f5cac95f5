// Spec "Storage Modes": the 4N example (6,5,4,5) int8 and the 2N example (3,5,4,5) int16 in the
// aligned layout, the 2IC mode, and the type each mode needs.
#include "tessera/npu/storage_mode.h"

#include <gtest/gtest.h>

#include <array>

#include "npu/spec_device.h"
#include "tessera/npu/device.h"
#include "tessera/npu/local_tensor.h"

namespace tessera::npu {
namespace {

using test_support::expect_error;
using test_support::spec_device;

ElementPlace at(const LocalTensor& tensor, int64_t n, int64_t c, int64_t h, int64_t w) {
  return tensor.place(std::array<int64_t, 4>{n, c, h, w});
}

TEST(FourNMode, Int8Example) {
  const LocalTensor tensor(spec_device(), {6, 5, 4, 5}, ElementType::kS8, 0, LocalLayout{},
                           StorageMode::k4N);
  // "The new shape of the tensor against data type int8x4 is (M = 2, C = 5, H = 4, W = 5)."
  EXPECT_EQ(tensor.stored_shape(), (TensorShape{2, 5, 4, 5}));
  EXPECT_EQ(stored_type_name(StorageMode::k4N, ElementType::kS8), "s8x4");
  EXPECT_EQ(tensor.stored_element_bytes(), 4);
  // int8x4 is 32-bit: C stride ceil(20/32)*32 = 32, two channels per NPU, N stride 64.
  EXPECT_EQ(tensor.strides(), (Strides{64, 32, 5, 1}));
  // "(4,0,0,0) and (5,0,0,0) of the original shape" are the first two bytes of stored (1,0,0,0).
  EXPECT_EQ(at(tensor, 4, 0, 0, 0), (ElementPlace{0, 256, 256}));
  EXPECT_EQ(at(tensor, 5, 0, 0, 0), (ElementPlace{0, 257, 257}));
  // n = 0..3 share a word: byte k = n mod 4.
  for (int64_t n = 0; n < 4; ++n)
    EXPECT_EQ(at(tensor, n, 1, 2, 3).byte_offset, (2 * 5 + 3) * 4 + n);
  EXPECT_EQ(at(tensor, 5, 4, 3, 4),
            (ElementPlace{0, (64 + 32 + 19) * 4 + 1, (64 + 32 + 19) * 4 + 1}));
}

// BM1684's own 4N conversion steps batch groups by ceil(C/X) channel rows, whatever the start NPU
// (asked on every run by tests/cli/test_npu_cmodel_live.py); the spec's rule counts from the start
// NPU. They differ only when the channels wrap past the last NPU: 8 channels from NPU 58 of 64.
TEST(FourNMode, Bm1684BatchGroupsStepByChannelsFromNpuZero) {
  const Device& bm1684 = device_presets()[0];
  ASSERT_EQ(bm1684.name, "bm1684");
  const int64_t npu58 = 58 * bm1684.local_memory_bytes;
  const LocalTensor chip(bm1684, {9, 8, 1, 5}, ElementType::kS8, npu58, LocalLayout{},
                         StorageMode::k4N);
  EXPECT_EQ(chip.channels_per_npu(), 2);
  EXPECT_EQ(chip.strides(), (Strides{32, 32, 5, 1}));  // one row of 32 words per batch group
  EXPECT_EQ(chip.layout().n_stride_rule, NStrideRule::kIgnoringStartNpu);
  // A device described by hand follows the spec: two rows per batch group.
  const Device custom = make_device(64, bm1684.local_memory_bytes, 128, 8);
  const LocalTensor spec(custom, {9, 8, 1, 5}, ElementType::kS8, npu58, LocalLayout{},
                         StorageMode::k4N);
  EXPECT_EQ(spec.strides(), (Strides{64, 32, 5, 1}));
  // Without the mode the chip's aligned layout keeps the spec's rule too (its default copy).
  const LocalTensor plain(bm1684, {9, 8, 1, 5}, ElementType::kS8, npu58, LocalLayout{});
  EXPECT_EQ(plain.layout().n_stride_rule, NStrideRule::kChannelsPerNpu);
}

TEST(TwoNMode, Int16Example) {
  // The spec says the stored (1,0,0,0) "contains an int8 element at (2,0,0,0)": the tensor is
  // int16, so it is an int16 element (we follow the text's data type).
  const LocalTensor tensor(spec_device(), {3, 5, 4, 5}, ElementType::kS16, 0, LocalLayout{},
                           StorageMode::k2N);
  EXPECT_EQ(tensor.stored_shape(), (TensorShape{2, 5, 4, 5}));
  EXPECT_EQ(stored_type_name(StorageMode::k2N, ElementType::kS16), "s16x2");
  EXPECT_EQ(tensor.strides(), (Strides{64, 32, 5, 1}));
  EXPECT_EQ(at(tensor, 0, 0, 0, 0).byte_offset, 0);
  EXPECT_EQ(at(tensor, 1, 0, 0, 0).byte_offset, 2);  // halfword n mod 2
  EXPECT_EQ(at(tensor, 2, 0, 0, 0).byte_offset, 256);
  EXPECT_EQ(at(tensor, 2, 4, 3, 4), (ElementPlace{0, (64 + 32 + 19) * 4, (64 + 32 + 19) * 4}));
  EXPECT_EQ(tensor.index_map().element_bits(), 16);
}

TEST(TwoIcMode, Fp32WeightsPairAlongI) {
  // Weights [I=3, O=5, H=4, W=5]: f32x2 is 64-bit, C stride ceil(20*8/128)*128/8 = 32.
  const LocalTensor tensor(spec_device(), {3, 5, 4, 5}, ElementType::kF32, 0, LocalLayout{},
                           StorageMode::k2IC);
  EXPECT_EQ(tensor.stored_shape(), (TensorShape{2, 5, 4, 5}));
  EXPECT_EQ(stored_type_name(StorageMode::k2IC, ElementType::kF32), "f32x2");
  EXPECT_EQ(tensor.stored_element_bytes(), 8);
  EXPECT_EQ(tensor.strides(), (Strides{64, 32, 5, 1}));
  EXPECT_EQ(at(tensor, 1, 0, 0, 0).byte_offset, 4);
  EXPECT_EQ(at(tensor, 2, 1, 0, 0), (ElementPlace{1, 512, 1024 + 512}));
  EXPECT_EQ(at(tensor, 1, 0, 0, 1).byte_offset, 12);
}

TEST(StorageModes, TypeRequirements) {
  for (ElementType type : {ElementType::kS8, ElementType::kU8})
    EXPECT_NO_THROW(check_storage_mode(StorageMode::k4N, type));
  for (ElementType type :
       {ElementType::kS16, ElementType::kU16, ElementType::kF16, ElementType::kBF16}) {
    EXPECT_NO_THROW(check_storage_mode(StorageMode::k2N, type));
  }
  EXPECT_NO_THROW(check_storage_mode(StorageMode::k2IC, ElementType::kF32));
  expect_error(ErrorKind::kInvalid, "4N needs an 8-bit type",
               [] { check_storage_mode(StorageMode::k4N, ElementType::kS16); });
  expect_error(ErrorKind::kInvalid, "2N needs a 16-bit type",
               [] { check_storage_mode(StorageMode::k2N, ElementType::kS8); });
  expect_error(ErrorKind::kInvalid, "2IC needs f32",
               [] { check_storage_mode(StorageMode::k2IC, ElementType::kS32); });
  expect_error(ErrorKind::kInvalid, "4N needs an 8-bit type", [] {
    LocalTensor(spec_device(), {4, 1, 1, 1}, ElementType::kF32, 0, LocalLayout{}, StorageMode::k4N);
  });
}

TEST(StorageModes, StoredShapeRoundsUp) {
  EXPECT_EQ(stored_shape(StorageMode::k4N, {1, 2, 3, 4}), (TensorShape{1, 2, 3, 4}));
  EXPECT_EQ(stored_shape(StorageMode::k4N, {8, 2, 3, 4}), (TensorShape{2, 2, 3, 4}));
  EXPECT_EQ(stored_shape(StorageMode::k2IC, {7, 2, 3, 4}), (TensorShape{4, 2, 3, 4}));
  EXPECT_EQ(stored_shape(StorageMode::kNone, {7, 2, 3, 4}), (TensorShape{7, 2, 3, 4}));
}

}  // namespace
}  // namespace tessera::npu
