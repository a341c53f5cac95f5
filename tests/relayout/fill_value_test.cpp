// The one fill parser (CLI --fill and Python fill=): values per type, and the refusals of
// hostile fills (out of range, non-integral, NaN into integers, overflow to infinity).
#include "tessera/relayout/fill_value.h"

#include <gtest/gtest.h>

#include <string>

#include "tessera/error.h"

namespace tessera::relayout {
namespace {

void expect_refused(std::string_view text, ElementType type, std::string_view why) {
  try {
    parse_fill_value(text, type);
    FAIL() << text << " was accepted for " << element_type_name(type);
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::kArgument);
    EXPECT_EQ(error.message(), std::string("fill value '") + std::string(text) + "' is not a " +
                                   std::string(element_type_name(type)) +
                                   " value: " + std::string(why));
  }
}

TEST(FillValue, ParsesNumbersPerType) {
  EXPECT_EQ(parse_fill_value("1", ElementType::kF32), 0x3f800000u);
  EXPECT_EQ(parse_fill_value("-1.5", ElementType::kF64), 0xbff8000000000000u);
  EXPECT_EQ(parse_fill_value("1", ElementType::kBF16), 0x3f80u);
  EXPECT_EQ(parse_fill_value("1", ElementType::kF16), 0x3c00u);
  EXPECT_EQ(parse_fill_value("65504", ElementType::kF16), 0x7bffu);
  EXPECT_EQ(parse_fill_value("inf", ElementType::kF16), 0x7c00u);
  EXPECT_EQ(parse_fill_value("-1", ElementType::kS8), 0xffu);
  EXPECT_EQ(parse_fill_value("-1", ElementType::kS4), 0xfu);
  EXPECT_EQ(parse_fill_value("true", ElementType::kPred), 1u);
  EXPECT_EQ(parse_fill_value("0x7fc00000", ElementType::kF32), 0x7fc00000u);
  EXPECT_THROW(parse_fill_value("300", ElementType::kU8), Error);
  EXPECT_THROW(parse_fill_value("8", ElementType::kS4), Error);
  EXPECT_THROW(parse_fill_value("abc", ElementType::kF32), Error);
  EXPECT_THROW(parse_fill_value("0x1ff", ElementType::kU8), Error);
  EXPECT_THROW(parse_fill_value("1.0", ElementType::kF8E4M3FN), Error);
  EXPECT_THROW(parse_fill_value("2", ElementType::kPred), Error);
}

TEST(FillValue, IntegersRefuseWhatDoesNotFit) {
  expect_refused("300", ElementType::kU8, "out of range [0, 255]");
  expect_refused("-1", ElementType::kU8, "out of range [0, 255]");
  expect_refused("8", ElementType::kS4, "out of range [-8, 7]");
  expect_refused("2.5", ElementType::kS32, "not an integer");
  expect_refused("nan", ElementType::kS32, "not an integer");
  expect_refused("inf", ElementType::kS32, "not an integer");
  expect_refused("9223372036854775808", ElementType::kS64,
                 "out of range [-9223372036854775808, 9223372036854775807]");
  expect_refused("18446744073709551616", ElementType::kU64,
                 "out of range [0, 18446744073709551615]");
  expect_refused("1e30", ElementType::kS64,
                 "out of range [-9223372036854775808, 9223372036854775807]");
  expect_refused("", ElementType::kS8, "not an integer");
}

TEST(FillValue, IntegersTakeIntegralNumbersAndTheWholeU64Range) {
  EXPECT_EQ(parse_fill_value("2.0", ElementType::kS32), 2u);
  EXPECT_EQ(parse_fill_value("1e3", ElementType::kU16), 1000u);
  EXPECT_EQ(parse_fill_value("-128", ElementType::kS8), 0x80u);
  EXPECT_EQ(parse_fill_value("-9223372036854775808", ElementType::kS64), 0x8000000000000000u);
  EXPECT_EQ(parse_fill_value("18446744073709551615", ElementType::kU64), ~uint64_t{0});
  EXPECT_EQ(parse_fill_value("-0", ElementType::kU8), 0u);
}

TEST(FillValue, FloatsRoundOnceLikeNumPyAndRefuseOverflow) {
  // np.float16(1.000488281250001).view(np.uint16) == 0x3c01 (through float it would be 0x3c00).
  EXPECT_EQ(parse_fill_value("1.000488281250001", ElementType::kF16), 0x3c01u);
  EXPECT_EQ(parse_fill_value("1.00048828125", ElementType::kF16), 0x3c00u);  // a tie: even
  EXPECT_EQ(parse_fill_value("6e-8", ElementType::kF16), 0x0001u);           // subnormal
  EXPECT_EQ(parse_fill_value("65519", ElementType::kF16), 0x7bffu);
  EXPECT_EQ(parse_fill_value("nan", ElementType::kF16), 0x7e00u);
  EXPECT_EQ(parse_fill_value("-inf", ElementType::kBF16), 0xff80u);
  EXPECT_EQ(parse_fill_value("nan", ElementType::kBF16), 0x7fc0u);
  EXPECT_EQ(parse_fill_value("1e-50", ElementType::kF32), 0u);
  EXPECT_EQ(parse_fill_value("0", ElementType::kF8E4M3FN), 0u);
  const std::string beyond = "out of range (beyond the largest finite value)";
  expect_refused("65520", ElementType::kF16, beyond);
  expect_refused("1e39", ElementType::kF32, beyond);
  expect_refused("-1e39", ElementType::kC64, beyond);
  expect_refused("1e400", ElementType::kF64, beyond);
  expect_refused("None", ElementType::kF32, "not a number");
  expect_refused("0", ElementType::kF8E8M0FNU, "give this type's fill value as raw bits, e.g. 0x0");
}

}  // namespace
}  // namespace tessera::relayout
