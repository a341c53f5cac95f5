#include "npy_header_dict.h"

#include <fmt/format.h>

#include <cctype>
#include <optional>
#include <utility>

#include "tessera/checked_arithmetic.h"
#include "tessera/error.h"
#include "tessera/utf8_text.h"
#include "tessera/xla/shape_limits.h"

namespace tessera::relayout::detail {
namespace {

[[noreturn]] void bad(const std::string& what) {
  throw Error(ErrorKind::kSyntax, fmt::format("not a valid .npy file: {}", what));
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

class DictReader {
 public:
  DictReader(std::string_view text, bool python2_longs)
      : text_(text), python2_longs_(python2_longs) {}

  NpyHeaderDict read() {
    expect('{', "the header is not a dictionary ('{' first)");
    std::optional<std::string> descr;
    std::optional<bool> fortran_order;
    std::optional<std::vector<int64_t>> shape;
    while (!accept('}')) {
      const std::string key = string_literal("a key");
      expect(':', fmt::format("expected ':' after the key '{}'", key));
      if (key == "descr") {
        if (descr) duplicate(key);
        descr = string_literal("'descr'");
      } else if (key == "fortran_order") {
        if (fortran_order) duplicate(key);
        fortran_order = boolean();
      } else if (key == "shape") {
        if (shape) duplicate(key);
        shape = tuple_of_sizes();
      } else {
        bad(
            fmt::format("the header has the key '{}'; NumPy allows only 'descr', "
                        "'fortran_order' and 'shape'",
                        printable_utf8(key)));
      }
      if (!accept(',')) {
        expect('}', "expected ',' or '}' after a value");
        break;
      }
    }
    skip_space();
    if (position_ != text_.size()) {
      bad(fmt::format("text after the header's dictionary, at byte {}: '{}'", position_ + 1,
                      printable_utf8(text_.substr(position_, 16))));
    }
    if (!descr) missing("descr");
    if (!fortran_order) missing("fortran_order");
    if (!shape) missing("shape");
    return {*descr, *fortran_order, *shape};
  }

 private:
  [[noreturn]] static void duplicate(const std::string& key) {
    bad(fmt::format("the header gives '{}' twice", key));
  }
  [[noreturn]] static void missing(const char* key) {
    bad(fmt::format("the header has no '{}'", key));
  }

  // Python's whitespace between tokens; NumPy pads the header with spaces and ends it with '\n'.
  void skip_space() {
    while (position_ < text_.size() &&
           (text_[position_] == ' ' || text_[position_] == '\t' || text_[position_] == '\n' ||
            text_[position_] == '\r' || text_[position_] == '\f')) {
      ++position_;
    }
  }
  bool accept(char c) {
    skip_space();
    if (position_ < text_.size() && text_[position_] == c) {
      ++position_;
      return true;
    }
    return false;
  }
  void expect(char c, const std::string& what) {
    if (!accept(c)) bad(what);
  }

  std::string string_literal(const std::string& what) {
    skip_space();
    const char quote = position_ < text_.size() ? text_[position_] : '\0';
    if (quote != '\'' && quote != '"') bad(fmt::format("{} is not a string", what));
    const std::size_t end = text_.find(quote, position_ + 1);
    if (end == std::string_view::npos) bad(fmt::format("{} is not terminated", what));
    const std::string_view body = text_.substr(position_ + 1, end - position_ - 1);
    if (body.find_first_of("\\\n") != std::string_view::npos) {
      bad(fmt::format("{} holds a backslash or a line break, which no NumPy writes", what));
    }
    position_ = end + 1;
    return std::string(body);
  }

  bool boolean() {
    skip_space();
    for (const auto& [word, value] : {std::pair{"True", true}, std::pair{"False", false}}) {
      const std::string_view w(word);
      const std::size_t after = position_ + w.size();
      const bool word_ends =
          after >= text_.size() ||
          !(std::isalnum(static_cast<unsigned char>(text_[after])) || text_[after] == '_');
      if (text_.substr(position_, w.size()) == w && word_ends) {
        position_ = after;
        return value;
      }
    }
    bad("'fortran_order' is neither True nor False");
  }

  int64_t size() {
    skip_space();
    const std::size_t start = position_;
    int64_t n = 0;
    while (position_ < text_.size() && is_digit(text_[position_])) {
      n = checked_add(checked_multiply(n, 10, "a .npy dimension"), text_[position_] - '0',
                      "a .npy dimension");
      ++position_;
    }
    if (position_ == start) bad("'shape' holds something other than sizes");
    if (text_[start] == '0' && position_ - start > 1) {
      bad("'shape' holds a size with a leading zero, which Python does not read");
    }
    if (python2_longs_ && position_ < text_.size() && text_[position_] == 'L') ++position_;
    return n;
  }

  // "()", "(3,)", "(3, 5)", "(3, 5,)"; "(16)" is the integer 16 in Python, not a tuple.
  std::vector<int64_t> tuple_of_sizes() {
    expect('(', "'shape' is not a tuple");
    std::vector<int64_t> shape;
    if (accept(')')) return shape;
    while (true) {
      xla::check_rank(shape.size() + 1);  // stop reading at the limit
      shape.push_back(size());
      if (accept(')')) {
        if (shape.size() == 1) {
          bad(
              fmt::format("'shape' is ({}), an integer in parentheses, not a tuple: NumPy "
                          "writes ({},) and refuses this",
                          shape[0], shape[0]));
        }
        return shape;
      }
      expect(',', "'shape' holds something other than sizes");
      if (accept(')')) return shape;
    }
  }

  std::string_view text_;
  bool python2_longs_;
  std::size_t position_ = 0;
};

}  // namespace

NpyHeaderDict parse_npy_header_dict(std::string_view text, bool python2_longs) {
  return DictReader(text, python2_longs).read();
}

}  // namespace tessera::relayout::detail
