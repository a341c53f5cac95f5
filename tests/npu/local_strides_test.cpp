// Spec "Strides in Local Memory" and "Layouts": the stride example, the aligned and compact
// examples at NPU 0 and NPU 2, and the continuous layout.
#include <gtest/gtest.h>

#include <array>

#include "npu/spec_device.h"
#include "tessera/checked_arithmetic.h"
#include "tessera/npu/local_tensor.h"

namespace tessera::npu {
namespace {

using test_support::spec_device;

LocalLayout strides(int64_t n, int64_t c, int64_t h, int64_t w) {
  return LocalLayout{LayoutKind::kStrides, {n, c, h, w}};
}

LocalLayout compact() {
  return LocalLayout{LayoutKind::kCompact};
}

// (2,5,3,4) f32 at NPU 0 with W stride 2, H stride 16, C stride 56, N stride 120.
TEST(StridesInLocalMemory, FirstExample) {
  const LocalTensor tensor(spec_device(), {2, 5, 3, 4}, ElementType::kF32, 0,
                           strides(120, 56, 16, 2));
  EXPECT_EQ(tensor.channels_per_npu(), 2);
  EXPECT_EQ(tensor.strides(), (Strides{120, 56, 16, 2}));
  for (int64_t n = 0; n < 2; ++n) {
    for (int64_t c = 0; c < 5; ++c) {
      for (int64_t h = 0; h < 3; ++h) {
        for (int64_t w = 0; w < 4; ++w) {
          const ElementPlace place = tensor.place(std::array<int64_t, 4>{n, c, h, w});
          EXPECT_EQ(place.npu, c % 4);
          EXPECT_EQ(place.byte_offset, (n * 120 + (c / 4) * 56 + h * 16 + w * 2) * 4);
        }
      }
    }
  }
  EXPECT_EQ(tensor.place(std::array<int64_t, 4>{1, 4, 2, 3}), (ElementPlace{0, 856, 856}));
}

// (2,3,1,10) f32 at NPU 1 with W stride 2 and N stride 120; H and C strides "make no sense" (H = 1,
// one channel per NPU), so any value is accepted. The spec's figure for this case disagrees with
// its text; tessera follows the text.
TEST(StridesInLocalMemory, SecondExampleIgnoresMeaninglessStrides) {
  for (const int64_t meaningless : {0, 7, 1000}) {
    const LocalTensor tensor(spec_device(), {2, 3, 1, 10}, ElementType::kF32, 1024,
                             strides(120, meaningless, meaningless, 2));
    EXPECT_EQ(tensor.channels_per_npu(), 1);
    for (int64_t n = 0; n < 2; ++n) {
      for (int64_t c = 0; c < 3; ++c) {
        for (int64_t w = 0; w < 10; ++w) {
          const ElementPlace place = tensor.place(std::array<int64_t, 4>{n, c, 0, w});
          EXPECT_EQ(place.npu, c + 1);
          EXPECT_EQ(place.byte_offset, (n * 120 + w * 2) * 4);
        }
      }
    }
  }
}

// "C stride is ceil(4 * 5 / 32) * 32 = 32 ... N stride is 32 * 1 = 32"; at NPU 2 "N stride is
// 32 * 2 = 64".
TEST(AlignedLayout, Fp32AtNpuZeroAndTwo) {
  const LocalTensor at0(spec_device(), {2, 3, 4, 5}, ElementType::kF32, 0, LocalLayout{});
  EXPECT_EQ(at0.strides(), (Strides{32, 32, 5, 1}));
  EXPECT_EQ(at0.channels_per_npu(), 1);
  const LocalTensor at2(spec_device(), {2, 3, 4, 5}, ElementType::kF32, 2048, LocalLayout{});
  EXPECT_EQ(at2.strides(), (Strides{64, 32, 5, 1}));
  EXPECT_EQ(at2.channels_per_npu(), 2);
  // 12 empty blocks after each feature: (0,0,3,4) ends at block 20, (1,0,0,0) starts at block 32.
  EXPECT_EQ(at0.place(std::array<int64_t, 4>{0, 0, 3, 4}).byte_offset, 19 * 4);
  EXPECT_EQ(at0.place(std::array<int64_t, 4>{1, 0, 0, 0}).byte_offset, 32 * 4);
  // At NPU 2 channel 2 wraps to NPU 0, second channel row.
  EXPECT_EQ(at2.place(std::array<int64_t, 4>{0, 2, 0, 0}), (ElementPlace{0, 128, 128}));
  EXPECT_EQ(at2.place(std::array<int64_t, 4>{1, 1, 0, 0}), (ElementPlace{3, 256, 3 * 1024 + 256}));
}

TEST(AlignedLayout, CStrideRulePerWidthOnBm1684) {
  // "ceil(H*W/32)*32 if 32-bit, ceil(H*W/64)*64 if 16-bit, ceil(H*W/128)*128 if 8-bit".
  for (const int64_t hw : {1, 20, 32, 33, 64, 100, 128, 129, 1000}) {
    EXPECT_EQ(aligned_c_stride(hw, 4, 128), ceil_divide(hw, 32) * 32) << hw;
    EXPECT_EQ(aligned_c_stride(hw, 2, 128), ceil_divide(hw, 64) * 64) << hw;
    EXPECT_EQ(aligned_c_stride(hw, 1, 128), ceil_divide(hw, 128) * 128) << hw;
  }
  // An alignment that is not a multiple of the element: the stride stays whole elements.
  EXPECT_EQ(aligned_c_stride(1, 4, 2), 1);
  EXPECT_EQ(aligned_c_stride(3, 4, 6), 3);
}

TEST(CompactLayout, Fp32AtNpuZeroAndTwo) {
  const LocalTensor at0(spec_device(), {2, 3, 4, 5}, ElementType::kF32, 0, compact());
  EXPECT_EQ(at0.strides(), (Strides{20, 20, 5, 1}));
  const LocalTensor at2(spec_device(), {2, 3, 4, 5}, ElementType::kF32, 2048, compact());
  EXPECT_EQ(at2.strides(), (Strides{40, 20, 5, 1}));
  EXPECT_EQ(at2.place(std::array<int64_t, 4>{1, 2, 3, 4}),
            (ElementPlace{0, (40 + 20 + 19) * 4, (40 + 20 + 19) * 4}));
  // Compact needs only 4-byte alignment.
  const LocalTensor at4(spec_device(), {2, 3, 4, 5}, ElementType::kF32, 4, compact());
  EXPECT_EQ(at4.place(std::array<int64_t, 4>{0, 0, 0, 1}).byte_offset, 8);
}

TEST(ContinuousLayout, Strides) {
  EXPECT_EQ(continuous_strides({2, 3, 4, 5}), (Strides{60, 20, 5, 1}));
}

TEST(AlignedLayout, GdmaRuleIgnoresTheStartNpu) {
  LocalLayout layout;
  layout.n_stride_rule = NStrideRule::kIgnoringStartNpu;
  const LocalTensor at2(spec_device(), {2, 3, 4, 5}, ElementType::kF32, 2048, layout);
  EXPECT_EQ(at2.strides(), (Strides{32, 32, 5, 1}));  // ceil(3/4) = 1 row, not 2
  // Channel 2 (NPU 0, row 1) of batch 0 and channel 0 (NPU 2, row 0) of batch 1 do not collide.
  EXPECT_EQ(at2.place(std::array<int64_t, 4>{0, 2, 0, 0}), (ElementPlace{0, 128, 128}));
  EXPECT_EQ(at2.place(std::array<int64_t, 4>{1, 2, 0, 0}), (ElementPlace{0, 256, 256}));
  EXPECT_EQ(at2.place(std::array<int64_t, 4>{1, 0, 0, 0}), (ElementPlace{2, 128, 2048 + 128}));
  // Agrees with the spec's rule when the tensor starts at NPU 0.
  const LocalTensor at0(spec_device(), {2, 6, 4, 5}, ElementType::kF32, 0, layout);
  EXPECT_EQ(at0.strides(), (Strides{64, 32, 5, 1}));
}

}  // namespace
}  // namespace tessera::npu
