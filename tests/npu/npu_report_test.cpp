// The JSON and text reports of `tessera npu info` and `tessera npu matrix`.
#include "tessera/npu/npu_report.h"

#include <gtest/gtest.h>

#include "npu/spec_device.h"

namespace tessera::npu {
namespace {

using test_support::spec_device;

TEST(NpuReport, TensorJson) {
  const LocalTensor tensor(spec_device(), {6, 5, 4, 5}, ElementType::kS8, 0, LocalLayout{},
                           StorageMode::k4N);
  const auto json = local_tensor_report_json(tensor);
  EXPECT_EQ(json["channels_per_npu"], 2);
  EXPECT_EQ(json["strides"], nlohmann::ordered_json::parse("[64,32,5,1]"));
  EXPECT_EQ(json["strides_bytes"], nlohmann::ordered_json::parse("[256,128,20,4]"));
  EXPECT_EQ(json["stored_shape"], nlohmann::ordered_json::parse("[2,5,4,5]"));
  EXPECT_EQ(json["stored_dtype"], "s8x4");
  EXPECT_EQ(json["dtype"], "s8");
  EXPECT_EQ(json["storage_mode"], "4N");
  EXPECT_EQ(json["start_npu"], 0);
  EXPECT_EQ(json["start_offset"], 0);
  EXPECT_EQ(json["npus_touched"], nlohmann::ordered_json::parse("[0,1,2,3]"));
  ASSERT_EQ(json["bytes_per_npu"].size(), 4u);
  EXPECT_EQ(json["bytes_per_npu"][0], (64 + 32 + 20) * 4);
  EXPECT_EQ(json["bytes_per_npu"][1], (64 + 20) * 4);
  EXPECT_EQ(json["dummy_bytes"], 200);
  EXPECT_EQ(json["fits"], true);
  EXPECT_EQ(json["overrun_bytes"], 0);
  EXPECT_EQ(json["footprint"].size(), 4u);
  EXPECT_EQ(json["device"]["npus"], 4);
}

TEST(NpuReport, TensorTextSaysWhetherItFits) {
  const LocalTensor fits(spec_device(), {2, 3, 4, 5}, ElementType::kF32, 2048, LocalLayout{});
  const std::string text = local_tensor_report_text(fits);
  EXPECT_NE(text.find("channel rows      2 (room for 2 channels per batch on every NPU)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("NPU 0      1 channel each,"), std::string::npos) << text;
  EXPECT_NE(text.find(", 1 bank\n"), std::string::npos) << text;  // not "1 banks"
  EXPECT_NE(text.find("strides (N,C,H,W) (64,32,5,1)"), std::string::npos) << text;
  EXPECT_NE(text.find("fits              yes"), std::string::npos) << text;
  const LocalTensor overruns(spec_device(), {4, 1, 4, 5}, ElementType::kF32, 640, LocalLayout{});
  EXPECT_NE(local_tensor_report_text(overruns).find("by 80 bytes"), std::string::npos);
  EXPECT_EQ(local_tensor_report_json(overruns)["fits"], false);
  EXPECT_EQ(local_tensor_report_json(overruns)["overrun_bytes"], 80);
}

TEST(NpuReport, MatrixJson) {
  const MatrixLayout matrix(spec_device(), 2, 40, ElementType::kF32, 0, 10);
  const auto json = matrix_report_json(matrix, true);
  EXPECT_EQ(json["w"], 10);
  EXPECT_EQ(json["best_w"], 10);
  EXPECT_EQ(json["channels"], 4);
  EXPECT_EQ(json["channels_per_npu"], 1);
  EXPECT_EQ(json["row_bytes_per_npu"], 128);
  EXPECT_EQ(json["local_memory_per_npu"], 168);
  EXPECT_EQ(json["bytes_per_npu"], nlohmann::ordered_json::parse("[168,168,168,168]"));
  EXPECT_EQ(json["fits"], true);
  EXPECT_FALSE(matrix_report_json(matrix, false).contains("best_w"));
  EXPECT_NE(matrix_report_text(matrix, false).find("last channel holds 10 columns"),
            std::string::npos);
}

}  // namespace
}  // namespace tessera::npu
