// Layouts that parse but whose sizes do not fit in 64 bits are refused with kOverflow.
#include <gtest/gtest.h>

#include <string>

#include "tessera/error.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::xla {
namespace {

ErrorKind compile_error(const char* text) {
  try {
    TiledLayout layout(parse_shape(text));
  } catch (const Error& e) {
    return e.kind();
  }
  ADD_FAILURE() << "compiled " << text;
  return ErrorKind::kSyntax;
}

TEST(TiledLayoutErrors, ByteSizesThatOverflowAreRefused) {
  EXPECT_EQ(compile_error("f32[4611686018427387904,4]"), ErrorKind::kOverflow);
  EXPECT_EQ(compile_error("f64[2305843009213693952]"), ErrorKind::kOverflow);
  EXPECT_EQ(compile_error("f32[9223372036854775807]{0:T(2)}"), ErrorKind::kOverflow);
  EXPECT_EQ(compile_error("f32[3037000500,3037000500]"), ErrorKind::kOverflow);
  EXPECT_EQ(compile_error("f32[4]{0:L(9223372036854775807)}"), ErrorKind::kOverflow);
  EXPECT_EQ(compile_error("f32[2,2]{1,0:T(*,4611686018427387904)}"), ErrorKind::kOverflow);
}

TEST(TiledLayoutErrors, AbsurdTileRanksAreRefusedNotSlow) {
  std::string text = "f32[2]{0:T(";
  for (int i = 0; i < 2000; ++i) text += "1,";
  text += "1)}";
  EXPECT_EQ(compile_error(text.c_str()), ErrorKind::kInvalid);
}

TEST(TiledLayoutErrors, LargestSizesThatFitAreAccepted) {
  // 2^61 one-byte elements: 2^61 bytes, fits. 2^62 elements of 1 bit (E(1)) is 2^59 bytes.
  EXPECT_EQ(TiledLayout(parse_shape("u8[2305843009213693952]")).size_bytes(), int64_t{1} << 61);
  EXPECT_EQ(TiledLayout(parse_shape("pred[4611686018427387904]{0:E(1)}")).size_bytes(),
            int64_t{1} << 59);
}

TEST(TiledLayoutErrors, IndicesOutOfRangeOrOfTheWrongRank) {
  const TiledLayout layout(parse_shape("f32[3,5]{1,0:T(2,2)}"));
  const std::vector<std::vector<int64_t>> bad = {{3, 0}, {0, 5}, {-1, 0}, {1}, {1, 2, 3}, {}};
  for (const auto& index : bad) {
    try {
      layout.index_map().linear_index(index);
      ADD_FAILURE() << "accepted an index of rank " << index.size();
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kOutOfRange);
    }
  }
  EXPECT_THROW(layout.index_map().logical_index(24), Error);
  EXPECT_THROW(layout.index_map().logical_index(-1), Error);
  EXPECT_EQ(layout.index_map().logical_index(23), std::nullopt);  // padding
}

}  // namespace
}  // namespace tessera::xla
