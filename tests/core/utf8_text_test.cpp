// Messages quote input as whole UTF-8 characters (issue 14 item 8).
#include "tessera/utf8_text.h"

#include <gtest/gtest.h>

#include "tessera/error.h"
#include "tessera/file_errors.h"
#include "tessera/xla/notation.h"

namespace tessera {
namespace {

TEST(Utf8Text, KeepsValidCharactersAndEscapesInvalidBytes) {
  EXPECT_EQ(printable_utf8("f32[\xc3\xbf]"), "f32[\xc3\xbf]");
  EXPECT_EQ(printable_utf8("a\xff"
                           "b"),
            "a\\xffb");
  EXPECT_EQ(printable_utf8("\xc3"), "\\xc3");                    // cut in half
  EXPECT_EQ(printable_utf8("\xc0\xaf"), "\\xc0\\xaf");           // overlong '/'
  EXPECT_EQ(printable_utf8("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(printable_utf8("\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80");
  EXPECT_EQ(character_at("(2,\xc3\xbf"
                         "1)",
                         3),
            "\xc3\xbf");
  EXPECT_EQ(character_at("ab", 2), "");
  EXPECT_EQ(display_column("(2,\xc3\xbf"
                           "1)",
                           5),
            4u);
  EXPECT_EQ(display_column("\xff"
                           "a",
                           1),
            4u);
}

// Regression: the parser quoted one byte of a two-byte character (a lone 0xc3 in the message).
TEST(Utf8Text, NotationErrorsQuoteWholeCharactersAndCountColumnsInCharacters) {
  try {
    xla::parse_shape(
        "bf16[32,256]{1,0:T(8,128)(2,\xc3\xbf"
        "1)}");
    FAIL() << "accepted";
  } catch (const Error& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("found '\xc3\xbf' (at column 29)"), std::string::npos) << what;
    EXPECT_EQ(printable_lines(what), what);
    EXPECT_EQ(what.substr(what.rfind('\n') + 1), std::string(2 + 28, ' ') + "^");
  }
  try {
    xla::parse_shape(
        "f32[\xff"
        "5]");
    FAIL() << "accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("found '\\xff'"), std::string::npos) << error.what();
  }
}

TEST(FileErrors, SayWhy) {
  EXPECT_STREQ(file_error("read", "x.npy", ENOENT).what(),
               "cannot read 'x.npy': No such file or directory");
  EXPECT_THROW(refuse_directory("read", "/"), Error);
}

}  // namespace
}  // namespace tessera
