// Spec "Scatter Features to Different NPUs": the four cases with X = 4, features (n, c) of an
// f32 (2, C, 4, 8) aligned tensor (one feature = 32 elements = 128 bytes).
#include <gtest/gtest.h>

#include <array>

#include "npu/spec_device.h"
#include "tessera/npu/local_tensor.h"

namespace tessera::npu {
namespace {

LocalTensor features(int64_t channels, int64_t start_npu) {
  return LocalTensor(test_support::spec_device(), {2, channels, 4, 8}, ElementType::kF32,
                     start_npu * 1024, LocalLayout{});
}

// Where feature (n, c) starts: its NPU and byte offset.
ElementPlace feature(const LocalTensor& tensor, int64_t n, int64_t c) {
  return tensor.place(std::array<int64_t, 4>{n, c, 0, 0});
}

TEST(ScatterFeaturesToDifferentNpus, ChannelsPerNpu) {
  EXPECT_EQ(channels_per_npu(0, 3, 4), 1);  // C = X - 1 at NPU 0
  EXPECT_EQ(channels_per_npu(1, 3, 4), 1);  // C = X - 1 at NPU 1
  EXPECT_EQ(channels_per_npu(0, 6, 4), 2);  // C = X + 2 at NPU 0
  EXPECT_EQ(channels_per_npu(3, 6, 4), 3);  // C = X + 2 at NPU X - 1
}

// "No features are scattered to NPU X - 1, the feature (1, 0) is ... in NPU 0."
TEST(ScatterFeaturesToDifferentNpus, XMinusOneChannelsAtNpuZero) {
  const LocalTensor tensor = features(3, 0);
  EXPECT_EQ(tensor.channels_per_npu(), 1);
  for (int64_t n = 0; n < 2; ++n) {
    for (int64_t c = 0; c < 3; ++c)
      EXPECT_EQ(feature(tensor, n, c), (ElementPlace{c, n * 128, c * 1024 + n * 128}));
  }
}

// "No features are scattered to NPU 0."
TEST(ScatterFeaturesToDifferentNpus, XMinusOneChannelsAtNpuOne) {
  const LocalTensor tensor = features(3, 1);
  EXPECT_EQ(tensor.channels_per_npu(), 1);
  for (int64_t n = 0; n < 2; ++n) {
    for (int64_t c = 0; c < 3; ++c) EXPECT_EQ(feature(tensor, n, c).npu, c + 1);
    for (int64_t c = 0; c < 3; ++c) EXPECT_EQ(feature(tensor, n, c).byte_offset, n * 128);
  }
}

// "(*, X) and (*, X + 1) are scattered to NPU 0 and NPU 1 ... X - 2 empty blocks".
TEST(ScatterFeaturesToDifferentNpus, XPlusTwoChannelsAtNpuZero) {
  const LocalTensor tensor = features(6, 0);
  EXPECT_EQ(tensor.channels_per_npu(), 2);
  for (int64_t n = 0; n < 2; ++n) {
    for (int64_t c = 0; c < 6; ++c) {
      EXPECT_EQ(feature(tensor, n, c).npu, c % 4);
      EXPECT_EQ(feature(tensor, n, c).byte_offset, n * 256 + (c / 4) * 128);
    }
  }
  // (*, c0) and (*, c1) share an NPU iff c0 mod X == c1 mod X.
  EXPECT_EQ(feature(tensor, 1, 4).npu, feature(tensor, 0, 0).npu);
  EXPECT_NE(feature(tensor, 1, 5).npu, feature(tensor, 0, 0).npu);
}

// "Three block rows ... with X - 1 empty blocks in each the first and third row."
TEST(ScatterFeaturesToDifferentNpus, XPlusTwoChannelsAtNpuXMinusOne) {
  const LocalTensor tensor = features(6, 3);
  EXPECT_EQ(tensor.channels_per_npu(), 3);
  const std::array<int64_t, 6> npu = {3, 0, 1, 2, 3, 0};
  const std::array<int64_t, 6> row = {0, 1, 1, 1, 1, 2};
  for (int64_t n = 0; n < 2; ++n) {
    for (int64_t c = 0; c < 6; ++c) {
      EXPECT_EQ(feature(tensor, n, c).npu, npu[c]);
      EXPECT_EQ(feature(tensor, n, c).byte_offset, n * 3 * 128 + row[c] * 128);
    }
  }
}

}  // namespace
}  // namespace tessera::npu
