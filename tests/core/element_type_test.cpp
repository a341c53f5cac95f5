#include "tessera/element_type.h"

#include <gtest/gtest.h>

namespace tessera {
namespace {

TEST(ElementType, EveryXlaTypeRoundTripsByName) {
  EXPECT_EQ(all_element_types().size(), 30u);
  for (ElementType type : all_element_types()) {
    EXPECT_EQ(parse_element_type(element_type_name(type)), type);
  }
}

TEST(ElementType, BitWidthsAndStorage) {
  EXPECT_EQ(bit_width(ElementType::kPred), 1);
  EXPECT_EQ(default_storage_bits(ElementType::kPred), 8);
  EXPECT_EQ(bit_width(ElementType::kS4), 4);
  EXPECT_EQ(default_storage_bits(ElementType::kS4), 8);
  EXPECT_EQ(bit_width(ElementType::kF4E2M1FN), 4);
  EXPECT_EQ(bit_width(ElementType::kBF16), 16);
  EXPECT_EQ(bit_width(ElementType::kC64), 64);
  EXPECT_EQ(bit_width(ElementType::kC128), 128);
  EXPECT_EQ(bit_width(ElementType::kF8E8M0FNU), 8);
  EXPECT_EQ(bit_width(ElementType::kU2), 2);
}

TEST(ElementType, NamesPeopleWrite) {
  EXPECT_EQ(parse_element_type("F32"), ElementType::kF32);
  EXPECT_EQ(parse_element_type("BF16"), ElementType::kBF16);
  EXPECT_EQ(parse_element_type("fp32"), ElementType::kF32);
  EXPECT_EQ(parse_element_type("int8"), ElementType::kS8);
  EXPECT_EQ(parse_element_type("uint16"), ElementType::kU16);
  EXPECT_EQ(parse_element_type("f31"), std::nullopt);
  EXPECT_EQ(parse_element_type(""), std::nullopt);
}

TEST(ElementType, Classes) {
  EXPECT_TRUE(is_integral(ElementType::kU64));
  EXPECT_FALSE(is_integral(ElementType::kPred));
  EXPECT_TRUE(is_floating(ElementType::kF8E5M2));
  EXPECT_TRUE(is_complex(ElementType::kC64));
  EXPECT_FALSE(is_floating(ElementType::kC64));
}

}  // namespace
}  // namespace tessera
