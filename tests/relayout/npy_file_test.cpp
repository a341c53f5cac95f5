#include "tessera/relayout/npy_file.h"

#include <gtest/gtest.h>

#include <string>

#include "tessera/error.h"

namespace tessera::relayout {
namespace {

std::span<const std::byte> bytes(const std::string& s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

TEST(NpyFile, WrittenHeaderIsAlignedAndReadsBack) {
  const std::string header = npy_header("<f4", {3, 5});
  EXPECT_EQ(header.size() % 64, 0u);
  EXPECT_EQ(header.back(), '\n');
  EXPECT_NE(header.find("'shape': (3, 5)"), std::string::npos);
  const NpyHeader parsed = parse_npy_header(bytes(header));
  EXPECT_EQ(parsed.descr, "<f4");
  EXPECT_FALSE(parsed.fortran_order);
  EXPECT_EQ(parsed.shape, (std::vector<int64_t>{3, 5}));
  EXPECT_EQ(parsed.data_offset, static_cast<int64_t>(header.size()));
  EXPECT_NE(npy_header("|b1", {7}).find("(7,)"), std::string::npos);
  EXPECT_TRUE(parse_npy_header(bytes(npy_header("<u2", {}))).shape.empty());
}

TEST(NpyFile, ReadsVersion2AndFortranOrder) {
  std::string dict = "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }\n";
  std::string file = std::string("\x93NUMPY\x02\x00", 8) + static_cast<char>(dict.size()) +
                     std::string(3, '\0') + dict;
  const NpyHeader parsed = parse_npy_header(bytes(file));
  EXPECT_TRUE(parsed.fortran_order);
  EXPECT_EQ(parsed.data_offset, 12 + static_cast<int64_t>(dict.size()));
}

TEST(NpyFile, RefusesWhatIsNotNpy) {
  EXPECT_THROW(parse_npy_header(bytes("hello world, not numpy")), Error);
  EXPECT_THROW(parse_npy_header(bytes(std::string("\x93NUMPY\x09\x00\x00\x00", 10))), Error);
  std::string truncated = npy_header("<f4", {3});
  truncated.resize(30);
  EXPECT_THROW(parse_npy_header(bytes(truncated)), Error);
}

// Regression (issue 14 item 9): NumPy keeps the last of a duplicated key, the reader kept the
// first, so one file held different arrays for the two. Refuse it.
TEST(NpyFile, RefusesDuplicateKeys) {
  const std::string dict =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'shape': (2,), }";
  std::string file = std::string("\x93NUMPY\x01\x00", 8);
  file += static_cast<char>(dict.size());
  file += '\0';
  file += dict;
  try {
    parse_npy_header(bytes(file));
    FAIL() << "accepted";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "not a valid .npy file: the header gives 'shape' twice");
  }
}

// Regression (issue 14 item 7): 16,000 dims took 29 s; the reader stops at the rank limit.
TEST(NpyFile, StopsAtTheRankLimit) {
  EXPECT_THROW(parse_npy_header(bytes(npy_header("<f4", std::vector<int64_t>(16000, 1)))), Error);
}

TEST(NpyFile, DescrsAcceptedPerType) {
  EXPECT_TRUE(npy_descr_accepts("<f4", ElementType::kF32));
  EXPECT_TRUE(npy_descr_accepts("=f4", ElementType::kF32));
  EXPECT_FALSE(npy_descr_accepts(">f4", ElementType::kF32));
  EXPECT_FALSE(npy_descr_accepts("<f8", ElementType::kF32));
  EXPECT_FALSE(npy_descr_accepts("<u4", ElementType::kF32));
  EXPECT_TRUE(npy_descr_accepts("<V2", ElementType::kBF16));
  EXPECT_TRUE(npy_descr_accepts("<u2", ElementType::kBF16));
  EXPECT_TRUE(npy_descr_accepts("|b1", ElementType::kPred));
  EXPECT_TRUE(npy_descr_accepts("|i1", ElementType::kS4));
  EXPECT_FALSE(npy_descr_accepts("<i2", ElementType::kS4));
}

}  // namespace
}  // namespace tessera::relayout
