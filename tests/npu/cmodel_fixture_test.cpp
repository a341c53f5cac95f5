// Every chip preset against what Sophgo's own C model of that chip answered
// (tests/fixtures/npu_oracle/CHIP.json, written by tools/npu_oracle/regenerate.sh from the
// tpu-mlir wheel): the constants, the stride functions and channel counts, and the place of every
// element after the chip's GDMA copies (default, aligned, compact and custom strides, 8/16/32-bit,
// strided sources) and matrix copies. A place is the address NPU * S + offset.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tessera/npu/chip.h"
#include "tessera/npu/local_tensor.h"
#include "tessera/npu/matrix_layout.h"
#include "tessera/npu/npu_arguments.h"

namespace tessera::npu {
namespace {

nlohmann::json read_chip_fixture(std::string_view chip) {
  const auto path = std::filesystem::path(TESSERA_TESTS_DIR) / "fixtures" / "npu_oracle" /
                    (std::string(chip) + ".json");
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  return nlohmann::json::parse(in);
}

ElementType type_of_width(int bits) {
  return bits == 8 ? ElementType::kS8 : bits == 16 ? ElementType::kS16 : ElementType::kF32;
}

TensorShape shape_of(const nlohmann::json& values) {
  return {values[0].get<int64_t>(), values[1].get<int64_t>(), values[2].get<int64_t>(),
          values[3].get<int64_t>()};
}

LocalLayout layout_of(const nlohmann::json& request) {
  const std::string kind = request.at("kind").get<std::string>();
  if (kind == "default") return parse_layout("gdma");
  if (kind == "aligned") return parse_layout("aligned");
  if (kind == "compact") return parse_layout("compact");
  LocalLayout layout;
  layout.kind = LayoutKind::kStrides;
  layout.strides = shape_of(request.at("dst_stride"));
  return layout;
}

// tessera's address of every element the request copied, in the fixture's order.
std::vector<int64_t> tessera_addresses(const Device& device, const nlohmann::json& request) {
  const int bits = request.at("bits").get<int>();
  const int64_t address = request.at("address").get<int64_t>();
  std::vector<int64_t> out;
  const auto address_of = [&](const ElementPlace& p) {
    return p.npu * device.local_memory_bytes + p.byte_offset;
  };
  if (request.at("op") == "matrix") {
    const MatrixLayout matrix(device, request.at("rows").get<int64_t>(),
                              request.at("cols").get<int64_t>(), type_of_width(bits), address,
                              request.at("cols_per_channel").get<int64_t>());
    for (int64_t i = 0; i < matrix.rows(); ++i) {
      for (int64_t j = 0; j < matrix.columns(); ++j) out.push_back(address_of(matrix.place(i, j)));
    }
    return out;
  }
  const TensorShape shape = shape_of(request.at("shape"));
  const LocalTensor tensor(device, shape, type_of_width(bits), address, layout_of(request));
  for (int64_t n = 0; n < shape[0]; ++n) {
    for (int64_t c = 0; c < shape[1]; ++c) {
      for (int64_t h = 0; h < shape[2]; ++h) {
        for (int64_t w = 0; w < shape[3]; ++w) {
          const std::array<int64_t, 4> index{n, c, h, w};
          out.push_back(address_of(tensor.place(index)));
        }
      }
    }
  }
  return out;
}

class ChipFixture : public testing::TestWithParam<std::string> {};

TEST_P(ChipFixture, PresetHasTheConstantsOfTheCModel) {
  const nlohmann::json fixture = read_chip_fixture(GetParam());
  const Device device = parse_device(GetParam());
  const auto& constants = fixture.at("constants");
  EXPECT_EQ(device.npus, constants.at("npus").get<int64_t>());
  EXPECT_EQ(device.local_memory_bytes, constants.at("local_memory_bytes").get<int64_t>());
  EXPECT_EQ(device.banks, constants.at("banks").get<int64_t>());
  for (const auto& [bits, bytes] : constants.at("eu_bytes").items()) {
    EXPECT_EQ(device.alignment_bytes, bytes.get<int64_t>()) << bits << "-bit";
  }
}

TEST_P(ChipFixture, StrideFunctionsAndChannelCountsEqualTheCModel) {
  const nlohmann::json fixture = read_chip_fixture(GetParam());
  const Device device = parse_device(GetParam());
  int checked = 0;
  for (const auto& record : fixture.at("records")) {
    const auto& request = record.at("request");
    const auto& answer = record.at("answer");
    const std::string op = request.at("op").get<std::string>();
    if (op == "channels_per_npu") {
      EXPECT_EQ(channels_per_npu(request.at("start").get<int64_t>(),
                                 request.at("channels").get<int64_t>(), device.npus),
                answer.at("channels_per_npu").get<int64_t>())
          << request;
      ++checked;
    } else if (op == "aligned_stride" || op == "compact_stride") {
      const int bits = op == "aligned_stride" ? request.at("bits").get<int>() : 32;
      const LocalTensor tensor(device, shape_of(request.at("shape")), type_of_width(bits),
                               request.at("start").get<int64_t>() * device.local_memory_bytes,
                               parse_layout(op == "aligned_stride" ? "aligned" : "compact"));
      EXPECT_EQ(tensor.strides(), shape_of(answer.at("stride"))) << request;
      ++checked;
    }
  }
  EXPECT_GT(checked, 30);
}

TEST_P(ChipFixture, EveryCopiedElementIsWhereTheCModelPutIt) {
  const nlohmann::json fixture = read_chip_fixture(GetParam());
  const Device device = parse_device(GetParam());
  int cases = 0;
  int64_t elements = 0;
  for (const auto& record : fixture.at("records")) {
    const auto& request = record.at("request");
    const auto& answer = record.at("answer");
    if (request.at("op") != "copy" && request.at("op") != "matrix") continue;
    ASSERT_FALSE(answer.contains("error")) << request << answer;
    EXPECT_FALSE(answer.at("twice").get<bool>()) << request;
    const auto expected = answer.at("addresses").get<std::vector<int64_t>>();
    const std::vector<int64_t> ours = tessera_addresses(device, request);
    ASSERT_EQ(ours.size(), expected.size()) << request;
    int64_t wrong = 0;
    for (std::size_t i = 0; i < ours.size(); ++i) wrong += ours[i] != expected[i] ? 1 : 0;
    EXPECT_EQ(wrong, 0) << wrong << " of " << ours.size() << " elements misplaced: " << request;
    ++cases;
    elements += static_cast<int64_t>(ours.size());
  }
  EXPECT_GT(cases, 60);
  EXPECT_GT(elements, 5000);  // the smallest chip, cv184x, has about 10,000
  std::cout << GetParam() << ": " << cases << " copies, " << elements << " elements compared\n";
}

std::vector<std::string> chip_names_for_tests() {
  std::vector<std::string> names;
  for (const ChipRecord& chip : chip_table()) names.emplace_back(chip.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(EveryChip, ChipFixture, testing::ValuesIn(chip_names_for_tests()),
                         [](const testing::TestParamInfo<std::string>& chip) {
                           return chip.param;
                         });

}  // namespace
}  // namespace tessera::npu
