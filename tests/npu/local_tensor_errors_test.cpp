// Every way a LocalTensor is refused, with the message saying what is wrong.
#include <gtest/gtest.h>

#include <array>
#include <limits>
#include <vector>

#include "npu/spec_device.h"
#include "tessera/npu/local_tensor.h"

namespace tessera::npu {
namespace {

using test_support::expect_error;
using test_support::spec_device;

LocalTensor make(TensorShape shape, ElementType type, int64_t address, LocalLayout layout = {},
                 StorageMode mode = StorageMode::kNone) {
  return LocalTensor(spec_device(), shape, type, address, layout, mode);
}

LocalLayout layout_strides(int64_t n, int64_t c, int64_t h, int64_t w) {
  return LocalLayout{LayoutKind::kStrides, {n, c, h, w}};
}

TEST(LocalTensorErrors, AddressOutsideLocalMemory) {
  expect_error(ErrorKind::kOutOfRange, "address 4096 is outside local memory", [] {
    make({1, 1, 1, 1}, ElementType::kF32, 4096);
  });
  expect_error(ErrorKind::kOutOfRange, "address -128", [] {
    make({1, 1, 1, 1}, ElementType::kF32, -128);
  });
}

TEST(LocalTensorErrors, UnalignedAddresses) {
  expect_error(ErrorKind::kInvalid, "aligned layout needs an offset that is a multiple of 128", [] {
    make({1, 1, 1, 1}, ElementType::kF32, 1024 + 64);
  });
  expect_error(ErrorKind::kInvalid, "compact layout needs a 4-byte aligned offset", [] {
    make({1, 1, 1, 1}, ElementType::kS8, 2, LocalLayout{LayoutKind::kCompact});
  });
  expect_error(ErrorKind::kInvalid, "not a multiple of the 2-byte s16", [] {
    make({1, 1, 1, 1}, ElementType::kS16, 3, layout_strides(1, 1, 1, 1));
  });
  expect_error(ErrorKind::kInvalid, "4-byte s8x4", [] {
    make({4, 1, 1, 1}, ElementType::kS8, 2, layout_strides(1, 1, 1, 1), StorageMode::k4N);
  });
  // Explicit strides need only element alignment.
  EXPECT_NO_THROW(make({1, 1, 1, 1}, ElementType::kS16, 2, layout_strides(1, 1, 1, 1)));
  // Local memory that is not whole elements.
  expect_error(ErrorKind::kInvalid, "local memory size 1022 is not a multiple of the 4-byte", [] {
    LocalTensor(make_device(4, 1022, 2), {1, 1, 1, 1}, ElementType::kF32, 0, LocalLayout{});
  });
}

TEST(LocalTensorErrors, ZeroOrNegativeDims) {
  expect_error(ErrorKind::kInvalid, "dimension N is 0", [] {
    make({0, 1, 1, 1}, ElementType::kF32, 0);
  });
  expect_error(ErrorKind::kInvalid, "dimension C is -2", [] {
    make({1, -2, 1, 1}, ElementType::kF32, 0);
  });
  expect_error(ErrorKind::kInvalid, "dimension W is 0", [] {
    make({1, 1, 1, 0}, ElementType::kF32, 0);
  });
}

TEST(LocalTensorErrors, StorageModeOnTheWrongType) {
  expect_error(ErrorKind::kInvalid, "4N needs an 8-bit type", [] {
    make({4, 1, 1, 1}, ElementType::kS16, 0, {}, StorageMode::k4N);
  });
  expect_error(ErrorKind::kInvalid, "2N needs a 16-bit type", [] {
    make({4, 1, 1, 1}, ElementType::kF32, 0, {}, StorageMode::k2N);
  });
  expect_error(ErrorKind::kInvalid, "2IC needs f32", [] {
    make({4, 1, 1, 1}, ElementType::kF16, 0, {}, StorageMode::k2IC);
  });
}

TEST(LocalTensorErrors, SubByteTypes) {
  expect_error(ErrorKind::kUnsupported, "s4 is a sub-byte type", [] {
    make({1, 1, 1, 1}, ElementType::kS4, 0);
  });
}

TEST(LocalTensorErrors, OverlappingStrides) {
  // W stride 1 over 4 columns but H stride 2: (0,0,0,2) and (0,0,1,0) share a byte.
  expect_error(ErrorKind::kInvalid, "strides make elements overlap: (0,0,0,2) and (0,0,1,0)", [] {
    make({1, 1, 2, 4}, ElementType::kF32, 0, layout_strides(8, 8, 2, 1));
  });
  // A zero stride over an axis of extent > 1.
  expect_error(ErrorKind::kInvalid, "strides make elements overlap", [] {
    make({2, 1, 1, 4}, ElementType::kF32, 0, layout_strides(0, 0, 0, 1));
  });
  // C stride smaller than a channel when there are several channel rows.
  expect_error(ErrorKind::kInvalid, "strides make elements overlap", [] {
    make({1, 8, 2, 2}, ElementType::kF32, 0, layout_strides(64, 2, 2, 1));
  });
  expect_error(ErrorKind::kInvalid, "N stride is -1: strides must not be negative", [] {
    make({2, 1, 1, 1}, ElementType::kF32, 0, strides(-1, 1, 1, 1));
  });
  // An axis of extent 1 never reaches its stride, but the report gives every stride in bytes:
  // 5600000000000100000 f32 elements is 2.24e19 bytes (found by fuzz_npu_arguments).
  expect_error(
      ErrorKind::kOverflow,
      "C stride is 5600000000000100000 stored elements: at 4 bytes each it overflows", [] {
        make({2, 1, 1, 1}, ElementType::kF32, 0, layout_strides(1, 5600000000000100000, 1, 1));
      });
  // The largest stride whose bytes fit is accepted there.
  EXPECT_NO_THROW(make({1, 1, 1, 1}, ElementType::kF32, 0,
                       layout_strides(1, std::numeric_limits<int64_t>::max() / 4, 1, 1)));
}

TEST(LocalTensorErrors, InterleavedStridesThatDoNotOverlapAreAccepted) {
  // W stride 2 over 3 columns and H stride 3: offsets 0,2,4 and 3,5,7 (H's stride is inside
  // W's span, so the strides do not nest, but no two elements meet).
  const LocalTensor tensor = make({1, 1, 2, 3}, ElementType::kF32, 0, layout_strides(16, 16, 3, 2));
  EXPECT_EQ(tensor.place(std::array<int64_t, 4>{0, 0, 1, 2}).byte_offset, 28);
  EXPECT_EQ(tensor.index_map().digit_form(), nullptr);
  EXPECT_EQ(tensor.index_map().logical_index(3), (std::vector<int64_t>{0, 0, 1, 0}));
  EXPECT_EQ(tensor.index_map().logical_index(1), std::nullopt);
}

TEST(LocalTensorErrors, RunningPastTheEndOfLocalMemory) {
  const LocalTensor tensor = make({4, 1, 4, 5}, ElementType::kF32, 640);
  EXPECT_FALSE(tensor.fits());
  expect_error(ErrorKind::kDoesNotFit, "runs past the end of local memory by 80 bytes", [&] {
    tensor.place(std::array<int64_t, 4>{0, 0, 0, 0});
  });
}

TEST(LocalTensorErrors, IndexOutOfRangeOrWrongRank) {
  const LocalTensor tensor = make({2, 3, 4, 5}, ElementType::kF32, 0);
  expect_error(ErrorKind::kOutOfRange, "index component C is 3, outside [0, 3)", [&] {
    tensor.place(std::array<int64_t, 4>{0, 3, 0, 0});
  });
  expect_error(ErrorKind::kOutOfRange, "index component N is -1", [&] {
    tensor.place(std::array<int64_t, 4>{-1, 0, 0, 0});
  });
  expect_error(ErrorKind::kOutOfRange, "index has 3 components", [&] {
    tensor.place(std::vector<int64_t>{0, 0, 0});
  });
}

TEST(LocalTensorErrors, SizesOverflow) {
  const Device huge = make_device(1, int64_t{1} << 62, 128);
  expect_error(ErrorKind::kOverflow, "overflows", [&] {
    LocalTensor(huge, {int64_t{1} << 40, 1, int64_t{1} << 30, 1}, ElementType::kF32, 0,
                LocalLayout{});
  });
  expect_error(ErrorKind::kOverflow, "overflows", [&] {
    LocalTensor(huge, {2, 1, 1, 1}, ElementType::kF32, 0,
                layout_strides(int64_t{1} << 62, 1, 1, 1));
  });
}

}  // namespace
}  // namespace tessera::npu
