// JSON read as a person reads it: a key given twice and a NUL byte are refused.
#include "tessera/strict_json.h"

#include <gtest/gtest.h>

#include <string>

#include "tessera/error.h"

namespace tessera {
namespace {

std::string refusal(const std::string& text) {
  try {
    parse_strict_json(text, "the plan");
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kSyntax);
    return e.what();
  }
  ADD_FAILURE() << "accepted: " << text;
  return "";
}

TEST(StrictJson, ReadsWhatNlohmannReads) {
  EXPECT_EQ(parse_strict_json(R"({"a": [1, {"b": 2}], "c": {"b": 3}})", "x")["c"]["b"], 3);
  EXPECT_EQ(parse_strict_json("[{\"a\": 1}, {\"a\": 2}]", "x")[1]["a"], 2);  // one key per object
}

TEST(StrictJson, NamesADuplicateKeyAndWhereItIs) {
  EXPECT_EQ(refusal(R"({"a": 1, "a": 2})"),
            "the plan is not valid: the top-level object: the key 'a' is given twice (JSON "
            "readers disagree on which one counts)");
  EXPECT_EQ(refusal(R"({"t": [{"a": 1}, {"b": [3, 4], "b": 5}]})").substr(0, 62),
            "the plan is not valid: t[1]: the key 'b' is given twice (JSON ");
  EXPECT_EQ(refusal(R"({"t": [[1, {"d": {"x": 1, "x": 1}}]]})").substr(0, 47),
            "the plan is not valid: t[0][1].d: the key 'x' i");
}

TEST(StrictJson, RefusesNulBytesAndTrailingText) {
  EXPECT_EQ(refusal(std::string("{}\0garbage", 10)).substr(0, 54),
            "the plan is not valid JSON: byte 3 is a NUL byte (JSON");
  EXPECT_NE(refusal("{} garbage").find("not valid JSON (byte 4)"), std::string::npos);
}

// A value nested 100,000 deep overflowed the stack in nlohmann's recursive dump; depth is bounded
// as the text is read.
TEST(StrictJson, RefusesNestingDeeperThanTheBound) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_NE(refusal(deep).find("values nest deeper than 64 levels"), std::string::npos);
  const std::string deepest_read = std::string(64, '[') + std::string(64, ']');
  EXPECT_NO_THROW(parse_strict_json(deepest_read, "x"));
  const std::string one_more = std::string(65, '[') + std::string(65, ']');
  EXPECT_THROW(parse_strict_json(one_more, "x"), Error);
}

}  // namespace
}  // namespace tessera
