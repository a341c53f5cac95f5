// Messages quote input as whole UTF-8 characters.
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

// Regression: control characters went through as they were: a NUL cut messages short
// in C strings and Python, an ESC reached the terminal, and XML (SVG) allows none of them.
TEST(Utf8Text, EscapesControlCharacters) {
  EXPECT_EQ(printable_utf8(std::string("a\0b", 3)), "a\\u0000b");
  EXPECT_EQ(printable_utf8("a\x01"
                           "b\x1b[31m\x7f"),
            "a\\u0001b\\u001b[31m\\u007f");
  EXPECT_EQ(printable_utf8("\xc2\x85"), "\\u0085");   // C1 NEL
  EXPECT_EQ(printable_utf8("\xc2\xa0"), "\xc2\xa0");  // no-break space: printable
  EXPECT_EQ(printable_utf8("a\nb\tc"), "a\\u000ab\\u0009c");
  EXPECT_EQ(printable_lines("a\nb\x01"), "a\nb\\u0001");
  EXPECT_EQ(display_column("\x01"
                           "a",
                           1),
            6u);
  EXPECT_EQ(character_at("a\x01", 1), "\\u0001");
  EXPECT_EQ(unprintable_reason("ab"), "");
  EXPECT_EQ(unprintable_reason("a\xc3"), "byte 2 (0xc3) is not UTF-8");
  EXPECT_EQ(unprintable_reason("\xc3\xbf\x01"), "character 2 is the control character U+0001");
  const Error error(ErrorKind::kInvalid, std::string("name 'a\0b'", 10));
  EXPECT_STREQ(error.what(), "name 'a\\u0000b'");  // whole, not cut at the NUL
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

// Messages quote at most so many bytes of the user's text; a cut inside a character would print
// half of it (fuzz_input_reader found two such cuts in the OOM report reader).
TEST(Utf8Text, PrefixesEndWhereACharacterStarts) {
  EXPECT_EQ(prefix_of_characters("a\xc3\xbf", 2), "a");
  EXPECT_EQ(prefix_of_characters("a\xc3\xbf", 3), "a\xc3\xbf");
  EXPECT_EQ(prefix_of_characters("\xe6\xb8\x80x", 2), "");
  EXPECT_EQ(prefix_of_characters("abc", 10), "abc");
  EXPECT_EQ(prefix_of_characters("\xff\xfe", 1), "\xff");  // invalid bytes are characters of one
  const std::string cut = std::string(prefix_of_characters("\xe4\xb8\x80\xe4\xb8\x80", 4));
  EXPECT_EQ(printable_utf8(cut), cut);
}

}  // namespace
}  // namespace tessera
