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

// Regression: NumPy keeps the last of a duplicated key, the reader kept the
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

std::string npy_with_dict(const std::string& dict) {
  std::string file = std::string("\x93NUMPY\x01\x00", 8);
  file += static_cast<char>(dict.size());
  file += '\0';
  return file + dict;
}

std::string refusal(const std::string& dict) {
  try {
    parse_npy_header(bytes(npy_with_dict(dict)));
  } catch (const Error& error) {
    return error.what();
  }
  ADD_FAILURE() << "accepted: " << dict;
  return "";
}

// Regression: np.load requires exactly the keys descr, fortran_order and shape, a tuple
// for shape ('shape': (16) is the int 16) and a bool for fortran_order; tessera read them all.
TEST(NpyFile, RefusesWhatNumPyRefuses) {
  EXPECT_EQ(refusal("{'descr': '<f4', 'fortran_order': False, 'shape': (16), }"),
            "not a valid .npy file: 'shape' is (16), an integer in parentheses, not a tuple: NumPy "
            "writes (16,) and refuses this");
  EXPECT_EQ(refusal("{'descr': '<f4', 'fortran_order': False, 'shape': (16,), 'extra': 1}"),
            "not a valid .npy file: the header has the key 'extra'; NumPy allows only 'descr', "
            "'fortran_order' and 'shape'");
  EXPECT_EQ(refusal("{'descr': '<f4', 'fortran_order': 0, 'shape': (16,)}"),
            "not a valid .npy file: 'fortran_order' is neither True nor False");
  EXPECT_EQ(refusal("{'descr': '<f4', 'fortran_order': Falsey, 'shape': (16,)}"),
            "not a valid .npy file: 'fortran_order' is neither True nor False");
  EXPECT_EQ(refusal("{'descr': '<f4', 'fortran_order': False, 'shape': (16,)} x"),
            "not a valid .npy file: text after the header's dictionary, at byte 58: 'x'");
  EXPECT_EQ(
      refusal(std::string("{'descr': '<f4', 'fortran_order': False, 'shape': (16,)}\n\0", 58)),
      "not a valid .npy file: text after the header's dictionary, at byte 58: '\\u0000'");
  EXPECT_EQ(refusal("{'descr': '<f4', 'shape': (16,)}"),
            "not a valid .npy file: the header has no 'fortran_order'");
  EXPECT_EQ(refusal("{'descr': '<f4', 'fortran_order': False, 'shape': (1, -2)}"),
            "not a valid .npy file: 'shape' holds something other than sizes");
  EXPECT_EQ(refusal("['descr', '<f4']"),
            "not a valid .npy file: the header is not a dictionary ('{' first)");
  // What NumPy writes, in every spelling it has used, still reads.
  const auto shape_of = [](const std::string& dict) {
    return parse_npy_header(bytes(npy_with_dict(dict))).shape;
  };
  EXPECT_EQ(shape_of("{'descr': '<f4', 'fortran_order': False, 'shape': (), }"),
            std::vector<int64_t>{});
  EXPECT_EQ(shape_of("{\"shape\": (3, 5,), \"descr\": \"<f4\", \"fortran_order\": True}\n"),
            (std::vector<int64_t>{3, 5}));
  EXPECT_EQ(shape_of("{'descr': '<f4', 'fortran_order': False, 'shape': (3L, 5L), }"),
            (std::vector<int64_t>{3, 5}));  // Python 2's longs, in a version 1.0 file
}

// Regression: bf16 was written as '<u2', so np.load gave uint16; ml_dtypes' own np.save
// of a bfloat16 array writes '<V2' (checked with numpy 2.4 and ml_dtypes 0.6).
TEST(NpyFile, Bfloat16IsWrittenAsMlDtypesWritesIt) {
  EXPECT_EQ(npy_descr(ElementType::kBF16), "<V2");
  EXPECT_TRUE(npy_descr_accepts("<V2", ElementType::kBF16));
  EXPECT_TRUE(npy_descr_accepts("<u2", ElementType::kBF16));
  EXPECT_EQ(npy_descr(ElementType::kU16), "<u2");
}

// Regression: 16,000 dims took 29 s; the reader stops at the rank limit.
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
