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

// Every dtype name JAX prints (x.dtype.name) names the XLA type jax lowers it to.
TEST(ElementType, JaxDtypeNames) {
  const std::pair<const char*, const char*> names[] = {{"bool", "pred"},
                                                       {"int2", "s2"},
                                                       {"uint2", "u2"},
                                                       {"int4", "s4"},
                                                       {"uint4", "u4"},
                                                       {"int64", "s64"},
                                                       {"uint64", "u64"},
                                                       {"complex64", "c64"},
                                                       {"complex128", "c128"},
                                                       {"float4_e2m1fn", "f4e2m1fn"},
                                                       {"float8_e5m2", "f8e5m2"},
                                                       {"float8_e4m3", "f8e4m3"},
                                                       {"float8_e4m3fn", "f8e4m3fn"},
                                                       {"float8_e4m3b11fnuz", "f8e4m3b11fnuz"},
                                                       {"float8_e3m4", "f8e3m4"},
                                                       {"float8_e5m2fnuz", "f8e5m2fnuz"},
                                                       {"float8_e4m3fnuz", "f8e4m3fnuz"},
                                                       {"float8_e8m0fnu", "f8e8m0fnu"},
                                                       {"float16", "f16"}};
  for (const auto& [jax, xla] : names) {
    const auto type = parse_element_type(jax);
    ASSERT_TRUE(type) << jax;
    EXPECT_EQ(element_type_name(*type), xla) << jax;
  }
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
