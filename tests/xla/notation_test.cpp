// Parsing and printing the notation: XLA's canonical strings round-trip byte for byte, the
// friendlier inputs people write are accepted, and every malformed input names its column.
#include "tessera/xla/notation.h"

#include <gtest/gtest.h>

#include <string>

#include "tessera/error.h"

namespace tessera::xla {
namespace {

TEST(Notation, XlaCanonicalStringsRoundTrip) {
  for (const char* text : {
           "f32[3,5]{1,0:T(2,2)}",
           "bf16[32,256]{1,0:T(8,128)(2,1)}",
           "bf16[32,256]{1,0:T(8,128)(2,1,1,1)}",
           "s8[8192,8192]{1,0:T(32,128)(4,1)}",
           "pred[64,128]{1,0:T(32,128)(32,1)E(1)}",
           "pred[8,128]{1,0:T(8,128)E(32)}",
           "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}",
           "f32[]",
           "f32[]{:T(256)}",
           "s4[1024]{0:T(1024)(128)(2,1)E(4)}",
           "f32[4,5]{0,1}",
           "f32[10]{0:T(256)L(512)}",
           "u8[3,4,5]{0,2,1:T(2,128)S(1)}",
           "c128[2,3]{1,0}",
           "f8e4m3b11fnuz[16,16]{1,0}",
           "f8e8m0fnu[4]{0}",
           "f4e2m1fn[256]{0:E(4)}",
           "s64[0,5]{1,0}",
           "u1[64]{0:E(1)}",
           "f32[8,128]{1,0:T(8,128)L(1024)E(32)S(2)}",
       }) {
    EXPECT_EQ(print_shape(parse_shape(text)), text);
  }
}

TEST(Notation, FriendlyInputPrintsCanonically) {
  EXPECT_EQ(print_shape(parse_shape("F32[3,5]{1,0:T(2,2)}")), "f32[3,5]{1,0:T(2,2)}");
  EXPECT_EQ(print_shape(parse_shape("f32[4,5]")), "f32[4,5]{1,0}");
  EXPECT_EQ(print_shape(parse_shape("  BF16 [ 32 , 256 ] { 1 , 0 : T(8, 128) (2,1) }  ")),
            "bf16[32,256]{1,0:T(8,128)(2,1)}");
  // Properties in any order print in XLA's order T, L, E, S.
  EXPECT_EQ(print_shape(parse_shape("s4[8]{0:S(1)E(4)L(2)T(8)}")), "s4[8]{0:T(8)L(2)E(4)S(1)}");
  // E(0) is XLA's "unset"; L(1) is the default and is not printed.
  EXPECT_EQ(print_shape(parse_shape("f32[2]{0:E(0)L(1)}")), "f32[2]{0}");
  EXPECT_EQ(print_shape(parse_shape("f32[]{}")), "f32[]");
}

TEST(Notation, ParsedValues) {
  const Shape shape = parse_shape("bf16[32,256]{1,0:T(8,128)(2,1)L(4)E(16)S(1)}");
  EXPECT_EQ(shape.element_type, ElementType::kBF16);
  EXPECT_EQ(shape.dimensions, (std::vector<int64_t>{32, 256}));
  EXPECT_EQ(shape.layout.minor_to_major, (std::vector<int64_t>{1, 0}));
  ASSERT_EQ(shape.layout.tiles.size(), 2u);
  EXPECT_EQ(shape.layout.tiles[1].dimensions, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(shape.layout.tail_padding_alignment_in_elements, 4);
  EXPECT_EQ(shape.layout.element_size_in_bits, 16);
  EXPECT_EQ(shape.layout.memory_space, 1);
  EXPECT_EQ(parse_shape("f32[2,7]{1,0:T(*,2)}").layout.tiles[0].dimensions[0],
            Tile::kCombineDimension);
}

struct BadInput {
  const char* text;
  ErrorKind kind;
  std::size_t column;  // 0-based
  const char* says;    // a fragment of the message
};

class NotationErrors : public ::testing::TestWithParam<BadInput> {};

TEST_P(NotationErrors, NameWhatAndWhere) {
  const BadInput& bad = GetParam();
  try {
    parse_shape(bad.text);
    FAIL() << "accepted " << bad.text;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), bad.kind) << e.what();
    ASSERT_TRUE(e.column().has_value()) << e.what();
    EXPECT_EQ(*e.column(), bad.column) << e.what();
    EXPECT_NE(e.message().find(bad.says), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find('^'), std::string::npos) << "no caret: " << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, NotationErrors,
    ::testing::Values(
        BadInput{"", ErrorKind::kSyntax, 0, "expected an element type"},
        BadInput{"q32[3]", ErrorKind::kSyntax, 0, "unknown element type 'q32'"},
        BadInput{"f32", ErrorKind::kSyntax, 3, "expected '['"},
        BadInput{"f32[3,5", ErrorKind::kSyntax, 7, "expected ',' or ']'"},
        BadInput{"f32[3,,5]", ErrorKind::kSyntax, 6, "expected a dimension size"},
        BadInput{"f32[-3]", ErrorKind::kInvalid, 4, "negative"},
        BadInput{"f32[99999999999999999999]", ErrorKind::kOverflow, 4, "does not fit in 64 bits"},
        BadInput{"f32[3,5]{1,0:T(2,2)}x", ErrorKind::kSyntax, 20, "unexpected text"},
        BadInput{"f32[3,5]{1,0:T(0,2)}", ErrorKind::kInvalid, 15, "tile dimension 0"},
        BadInput{"f32[3,5]{1,0:T(2,-4)}", ErrorKind::kInvalid, 17, "tile dimension -4"},
        BadInput{"f32[3,5]{1,0:T()}", ErrorKind::kInvalid, 14, "at least one dimension"},
        BadInput{"f32[3,5]{1,0:T(2,*)}", ErrorKind::kInvalid, 17, "most minor"},
        BadInput{"f32[3,5]{1,0:T}", ErrorKind::kSyntax, 14, "expected '('"},
        BadInput{"f32[3,5]{1,0:L(0)}", ErrorKind::kInvalid, 13, "L(0)"},
        BadInput{"f32[3,5]{1,0:E(8)}", ErrorKind::kInvalid, 13, "E(8)"},
        BadInput{"f32[3,5]{1,1}", ErrorKind::kInvalid, 11, "appears twice"},
        BadInput{"f32[3,5]{2,0}", ErrorKind::kInvalid, 9, "not a dimension"},
        BadInput{"f32[3,5]{0}", ErrorKind::kInvalid, 8, "lists 1 dimensions"},
        BadInput{"f32[3,5]{1,0:T(2,2)T(2,2)}", ErrorKind::kInvalid, 19, "given twice"},
        BadInput{"f32[3,5]{1,0:X(2)}", ErrorKind::kSyntax, 13, "unknown layout property"},
        BadInput{"f32[3,5]{1,0:D(D,D)}", ErrorKind::kUnsupported, 13, "not supported"},
        BadInput{"f32[3,5]{1,0:SC(0:1)}", ErrorKind::kUnsupported, 13, "not supported"},
        BadInput{"f32[3,5]{1,0:#(s32)}", ErrorKind::kUnsupported, 13, "not supported"},
        BadInput{"f32[3,5]{1,0:M(8)}", ErrorKind::kUnsupported, 13, "not supported"},
        BadInput{"f32[<=3]", ErrorKind::kUnsupported, 4, "dynamic"},
        BadInput{"(f32[3], s32[])", ErrorKind::kUnsupported, 0, "tuple"},
        BadInput{"f32[3,5]{1,0:T(2,2)", ErrorKind::kSyntax, 19, "expected '}'"}),
    [](const ::testing::TestParamInfo<BadInput>& param) {
      return "case" + std::to_string(param.index);
    });

TEST(Notation, SizesThatOverflowAreErrorsNotWrapArounds) {
  // Parsing succeeds; compiling the layout must refuse (covered in tiled_layout_errors_test).
  EXPECT_NO_THROW(parse_shape("f32[4611686018427387904,4]"));
}

}  // namespace
}  // namespace tessera::xla
