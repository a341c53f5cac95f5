// `explain npu`: the spec's scatter and matrix examples, the NPU table, ranked placements.
#include "tessera/explain/npu_explanation.h"

#include <gtest/gtest.h>

#include <numeric>

#include "tessera/npu/device.h"

namespace tessera::explain {
namespace {

// The spec's illustration device: X = 4, S = 1024, 128-byte alignment.
const npu::Device kDevice = npu::make_device(4, 1024, 128);

npu::LocalTensor tensor(npu::TensorShape shape, int64_t address,
                        npu::LayoutKind kind = npu::LayoutKind::kAligned,
                        ElementType type = ElementType::kF32,
                        npu::StorageMode mode = npu::StorageMode::kNone,
                        const npu::Device& device = kDevice) {
  npu::LocalLayout layout;
  layout.kind = kind;
  return npu::LocalTensor(device, shape, type, address, layout, mode);
}

// "Scatter Features to Different NPUs": C = X + 2 starting at NPU X - 1 takes three channel
// rows ("such a storage is terrible"); starting at NPU 0 takes two.
TEST(ScatterFeaturesToDifferentNpus, StartAtLastNpuWastesAndIsExplained) {
  const auto e = explain_local_tensor(tensor({1, 6, 1, 1}, 3 * 1024), 100);
  EXPECT_EQ(e.logical_bytes, 24);
  EXPECT_EQ(e.size_bytes, 4 * 260);  // NPU 0 holds channel rows 1 and 2: bytes up to 259
  ASSERT_EQ(e.npus.size(), 4u);
  EXPECT_EQ(e.npus[0].channels, 2);
  EXPECT_EQ(e.npus[3].channels, 2);
  EXPECT_EQ(e.npus[1].channels, 1);
  int64_t wasted = 0;
  for (const auto& u : e.npus) wasted += u.wasted_bytes;
  EXPECT_EQ(wasted, e.size_bytes - e.logical_bytes);
  ASSERT_FALSE(e.suggestions.empty());
  EXPECT_EQ(e.suggestions[0].size_bytes, 32);  // compact: one f32 per channel, 2 rows at NPU 0
  EXPECT_EQ(e.suggestions[0].change, "start at NPU 0, compact layout");
  // The aligned layout at NPU 0 is there too: two channel rows, 4 * (128 + 4) bytes.
  bool aligned_at_zero = false;
  for (const auto& s : e.suggestions) {
    if (s.change == "start at NPU 0") {
      aligned_at_zero = true;
      EXPECT_EQ(s.size_bytes, 4 * 132);
    }
  }
  EXPECT_TRUE(aligned_at_zero);
  for (std::size_t i = 1; i < e.suggestions.size(); ++i) {
    EXPECT_LE(e.suggestions[i - 1].size_bytes, e.suggestions[i].size_bytes);
  }
}

// "Matrix Layout": f32 2x40 at NPU 0; W = 40 needs 416 bytes per NPU, W = 10 only 168.
TEST(MatrixLayout, BestWidthIsTheFirstSuggestion) {
  const npu::MatrixLayout matrix(kDevice, 2, 40, ElementType::kF32, 0, 40);
  const auto e = explain_matrix(matrix, 100);
  EXPECT_EQ(e.logical_bytes, 320);
  EXPECT_EQ(e.size_bytes, 4 * 416);
  ASSERT_TRUE(e.best_w);
  EXPECT_EQ(*e.best_w, 10);
  ASSERT_FALSE(e.suggestions.empty());
  EXPECT_EQ(e.suggestions[0].bytes_per_npu, 168);
  EXPECT_NE(e.suggestions[0].layout.find("--w 10"), std::string::npos);
  // The spec's other widths, per NPU: W = 20 -> 208, W = 8 -> 416 (C = 5 > X).
  for (const auto& s : e.suggestions) {
    if (s.layout.ends_with("--w 20")) {
      EXPECT_EQ(s.bytes_per_npu, 208);
    }
    if (s.layout.ends_with("--w 8")) {
      EXPECT_EQ(s.bytes_per_npu, 416);
    }
  }
  const auto json = npu_explanation_json(e);
  EXPECT_EQ(json["best_w"], 10);
  EXPECT_EQ(json["size_bytes"], 1664);
  EXPECT_EQ(json["suggestions"][0]["size_bytes"], 672);
}

TEST(NpuTable, BanksTouchedAndFits) {
  const npu::Device banked = npu::make_device(4, 1024, 128, 4);  // banks of 256 bytes
  // f32 (1,4,10,10) compact at offset 0: each NPU holds 100 floats, bytes 0..399: banks 0-1.
  const auto e = explain_local_tensor(tensor({1, 4, 10, 10}, 0, npu::LayoutKind::kCompact,
                                             ElementType::kF32, npu::StorageMode::kNone, banked),
                                      10);
  ASSERT_EQ(e.npus.size(), 4u);
  for (const auto& u : e.npus) {
    EXPECT_EQ(u.used_bytes, 400);
    EXPECT_EQ(u.banks, (std::vector<int64_t>{0, 1}));
    EXPECT_TRUE(u.fits);
  }
  const auto json = npu_explanation_json(e);
  EXPECT_TRUE(json["fits"].get<bool>());
  EXPECT_EQ(json["layout"],
            "--device npus=4,lmem=1024,align=128,banks=4 --shape 1,4,10,10 --dtype f32 "
            "--address 0 --layout compact");
  // A tensor past the end of local memory: the NPU that overruns says so.
  const auto big = explain_local_tensor(tensor({1, 1, 16, 32}, 512), 10);
  EXPECT_FALSE(big.npus[0].fits);
  EXPECT_FALSE(npu_explanation_json(big)["fits"].get<bool>());
  EXPECT_NE(npu_explanation_text(big).find("no"), std::string::npos);
}

TEST(NpuSuggestions, StorageModeIsKeptAndTextListsSavings) {
  // "4N-mode": s8 (6,5,4,5) aligned at NPU 2: starting at NPU 0 saves a channel row.
  const auto e = explain_local_tensor(tensor({6, 5, 4, 5}, 2048, npu::LayoutKind::kAligned,
                                             ElementType::kS8, npu::StorageMode::k4N),
                                      10);
  ASSERT_FALSE(e.suggestions.empty());
  for (const auto& s : e.suggestions) EXPECT_NE(s.layout.find("--mode 4N"), std::string::npos);
  EXPECT_LT(e.suggestions[0].size_bytes, e.size_bytes);
  EXPECT_NE(npu_explanation_text(e).find("suggestions (bytes saved, best first)"),
            std::string::npos);
}

}  // namespace
}  // namespace tessera::explain
