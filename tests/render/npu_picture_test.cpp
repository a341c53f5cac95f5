// Pictures of NPU local memory: the spec's stride, 4N and matrix figures.
#include "tessera/render/npu_picture.h"

#include <gtest/gtest.h>

#include "tessera/error.h"
#include "tessera/npu/device.h"

namespace tessera::render {
namespace {

const npu::Device kDevice = npu::make_device(4, 1024, 128);

const NpuBlock& block_at(const NpuPicture& p, int64_t npu, int64_t byte) {
  for (const auto& b : p.blocks) {
    if (b.npu == npu && b.byte_offset == byte) return b;
  }
  throw std::runtime_error("no such block");
}

// "Strides in Local Memory": f32 (2,5,3,4) at NPU 0 with W 2, H 16, C 56, N 120.
TEST(StridesInLocalMemory, StridePicture) {
  npu::LocalLayout layout;
  layout.kind = npu::LayoutKind::kStrides;
  layout.strides = {120, 56, 16, 2};
  const npu::LocalTensor tensor(kDevice, {2, 5, 3, 4}, ElementType::kF32, 0, layout);
  const NpuPicture p = build_npu_picture(tensor, {});
  EXPECT_EQ(p.block_bytes, 4);
  EXPECT_EQ(p.npus, 4);
  const NpuBlock& element = block_at(p, 1, 8);  // channel 1 on NPU 1, w = 1 two elements in
  ASSERT_EQ(element.elements.size(), 1u);
  EXPECT_EQ(*element.elements[0], (std::vector<int64_t>{0, 1, 0, 1}));
  EXPECT_TRUE(block_at(p, 1, 4).elements.empty());  // the W-stride gap
  EXPECT_EQ(*block_at(p, 0, 4 * 56).elements[0], (std::vector<int64_t>{0, 4, 0, 0}));   // c + X
  EXPECT_EQ(*block_at(p, 0, 4 * 120).elements[0], (std::vector<int64_t>{1, 0, 0, 0}));  // n + 1
  EXPECT_EQ(p.batch_bytes, 480);
  const std::string svg = npu_svg(p);
  EXPECT_NE(svg.find("NPU 3"), std::string::npos);
}

// "4N-mode": s8 (6,5,4,5): the stored element (1,0,0,0) holds n = 4, 5 and two dummies.
TEST(FourNMode, DummiesAreShown) {
  const npu::LocalTensor tensor(kDevice, {6, 5, 4, 5}, ElementType::kS8, 0, {},
                                npu::StorageMode::k4N);
  const NpuPicture p = build_npu_picture(tensor, {});
  const int64_t n_stride_bytes = tensor.strides()[0] * 4;
  const NpuBlock& packed = block_at(p, 0, n_stride_bytes);
  ASSERT_EQ(packed.elements.size(), 4u);
  EXPECT_EQ(*packed.elements[0], (std::vector<int64_t>{4, 0, 0, 0}));
  EXPECT_EQ(*packed.elements[1], (std::vector<int64_t>{5, 0, 0, 0}));
  EXPECT_FALSE(packed.elements[2]);
  EXPECT_FALSE(packed.elements[3]);
  EXPECT_NE(npu_svg(p).find("url(#dummy)"), std::string::npos);
}

// "Matrix Layout" with W = 15: NPU 2 holds columns 30..39, the rest of its channel is past M.
TEST(MatrixLayout, WidthFifteenPicture) {
  const npu::MatrixLayout matrix(kDevice, 2, 40, ElementType::kF32, 0, 15);
  const NpuPicture p = build_npu_picture(matrix, {});
  EXPECT_EQ(*block_at(p, 2, 0).elements[0], (std::vector<int64_t>{0, 30}));
  EXPECT_EQ(*block_at(p, 2, 36).elements[0], (std::vector<int64_t>{0, 39}));
  EXPECT_FALSE(block_at(p, 2, 36).past_matrix);
  EXPECT_TRUE(block_at(p, 2, 40).past_matrix);
  EXPECT_TRUE(block_at(p, 3, 0).elements.empty());  // C = 3 < X: NPU 3 is empty
  EXPECT_EQ(*block_at(p, 1, 128).elements[0], (std::vector<int64_t>{1, 15}));
}

TEST(NpuPictures, WindowsAndErrors) {
  const npu::LocalTensor tensor(kDevice, {2, 3, 4, 5}, ElementType::kF32, 2048, {});
  NpuPictureOptions options;
  options.window = parse_window("0:4,2:4");
  const NpuPicture p = build_npu_picture(tensor, options);
  EXPECT_EQ(p.blocks.size(), 8u);
  EXPECT_EQ(p.blocks[0].npu, 2);
  options.window = parse_window("0:4,2:5");
  EXPECT_THROW(build_npu_picture(tensor, options), Error);  // only 4 NPUs
  options.window = parse_window("0:1000,0:4");
  EXPECT_THROW(build_npu_picture(tensor, options), Error);  // more rows than the band
  const npu::LocalTensor past(kDevice, {1, 1, 16, 32}, ElementType::kF32, 512, {});
  EXPECT_THROW(build_npu_picture(past, {}), Error);  // does not fit
  const npu::Device wide = npu::make_device(64, 1024, 128);
  const npu::LocalTensor many(wide, {1, 64, 1, 1}, ElementType::kF32, 0, {});
  EXPECT_EQ(build_npu_picture(many, {}).window.col_end, 16);  // default: 16 NPUs side by side
  EXPECT_THROW(write_picture(build_npu_picture(tensor, {}), "/tmp/x.pdf"), Error);
}

}  // namespace
}  // namespace tessera::render
