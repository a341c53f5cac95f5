#include "tessera/xla/notation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <limits>

#include "tessera/error.h"
#include "tessera/utf8_text.h"
#include "tessera/xla/shape_limits.h"

namespace tessera::xla {

Layout Layout::descending(int rank) {
  Layout layout;
  for (int i = rank - 1; i >= 0; --i) layout.minor_to_major.push_back(i);
  return layout;
}

int Shape::element_storage_bits() const {
  if (layout.element_size_in_bits != 0) return static_cast<int>(layout.element_size_in_bits);
  return default_storage_bits(element_type);
}

namespace {

// Upper bound on E(n): large enough for any real type, small enough that bit offsets stay exact.
constexpr int64_t kMaxElementBits = 1 << 16;

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  bool layout_written() const { return layout_written_; }

  Shape parse() {
    Shape shape;
    skip_spaces();
    const std::size_t type_column = pos_;
    if (peek() == '(') fail_unsupported("tuple shapes are not supported; give one array shape");
    std::string type_name;
    while (pos_ < text_.size() && std::isalnum(static_cast<unsigned char>(text_[pos_]))) {
      type_name += text_[pos_++];
    }
    if (type_name.empty()) fail("expected an element type such as f32 or bf16", type_column);
    const auto type = parse_element_type(type_name);
    if (!type) fail(fmt::format("unknown element type '{}'", type_name), type_column);
    shape.element_type = *type;
    skip_spaces();
    expect('[', "expected '[' after the element type");
    shape.dimensions = parse_dimensions();
    skip_spaces();
    if (peek() == '{') {
      layout_written_ = true;
      shape.layout = parse_layout(shape);
    } else {
      shape.layout = Layout::descending(shape.rank());
    }
    skip_spaces();
    if (pos_ != text_.size()) fail("unexpected text after the shape", pos_);
    return shape;
  }

 private:
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skip_spaces() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  [[noreturn]] void fail(const std::string& message, std::size_t column) const {
    throw Error(ErrorKind::kSyntax, message, text_, std::min(column, text_.size()));
  }
  [[noreturn]] void fail_invalid(const std::string& message, std::size_t column) const {
    throw Error(ErrorKind::kInvalid, message, text_, std::min(column, text_.size()));
  }
  [[noreturn]] void fail_unsupported(const std::string& message) const {
    throw Error(ErrorKind::kUnsupported, message, text_, pos_);
  }
  [[noreturn]] void fail_unsupported_at(const std::string& message, std::size_t column) const {
    throw Error(ErrorKind::kUnsupported, message, text_, column);
  }
  void expect(char c, const char* message) {
    skip_spaces();
    if (peek() != c) {
      if (pos_ >= text_.size()) fail(fmt::format("{}, found the end of the text", message), pos_);
      fail(fmt::format("{}, found '{}'", message, character_at(text_, pos_)), pos_);
    }
    ++pos_;
  }

  // A decimal integer, optionally negative (so that "-1" can be reported as negative, not as
  // a syntax error). Overflow is an error at the number's column.
  int64_t parse_integer(const char* what) {
    skip_spaces();
    const std::size_t start = pos_;
    bool negative = false;
    if (peek() == '-') {
      negative = true;
      ++pos_;
    }
    if (!std::isdigit(static_cast<unsigned char>(peek()))) {
      if (pos_ >= text_.size())
        fail(fmt::format("expected {}, found the end of the text", what), pos_);
      fail(fmt::format("expected {}, found '{}'", what, character_at(text_, pos_)), pos_);
    }
    uint64_t value = 0;
    while (std::isdigit(static_cast<unsigned char>(peek()))) {
      const auto digit = static_cast<uint64_t>(text_[pos_] - '0');
      if (value > (static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) - digit) / 10) {
        throw Error(ErrorKind::kOverflow, fmt::format("{} does not fit in 64 bits", what), text_,
                    start);
      }
      value = value * 10 + digit;
      ++pos_;
    }
    const auto signed_value = static_cast<int64_t>(value);
    return negative ? -signed_value : signed_value;
  }

  std::vector<int64_t> parse_dimensions() {
    std::vector<int64_t> dims;
    skip_spaces();
    if (peek() == ']') {
      ++pos_;
      return dims;
    }
    while (true) {
      skip_spaces();
      if (peek() == '<' || peek() == '?') {
        fail_unsupported("dynamic dimensions are not supported; give static sizes");
      }
      const std::size_t column = pos_;
      const int64_t d = parse_integer("a dimension size");
      if (d < 0) fail_invalid(fmt::format("dimension size {} is negative", d), column);
      if (static_cast<int>(dims.size()) == kMaxRank) {
        fail_unsupported_at(
            fmt::format("more than {} dimensions: tessera's rank limit is {}", kMaxRank, kMaxRank),
            column);
      }
      dims.push_back(d);
      skip_spaces();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      expect(']', "expected ',' or ']' in the dimensions");
      return dims;
    }
  }

  Layout parse_layout(const Shape& shape) {
    Layout layout;
    const std::size_t open = pos_;
    ++pos_;  // '{'
    skip_spaces();
    std::vector<std::size_t> columns;
    if (std::isdigit(static_cast<unsigned char>(peek())) || peek() == '-') {
      while (true) {
        skip_spaces();
        columns.push_back(pos_);
        layout.minor_to_major.push_back(parse_integer("a dimension number"));
        skip_spaces();
        if (peek() != ',') break;
        ++pos_;
      }
    }
    check_minor_to_major(layout.minor_to_major, columns, shape.rank(), open);
    skip_spaces();
    if (peek() == ':') {
      ++pos_;
      parse_properties(layout, shape);
    }
    expect('}', "expected '}' to close the layout");
    return layout;
  }

  void check_minor_to_major(const std::vector<int64_t>& m2m,
                            const std::vector<std::size_t>& columns, int rank,
                            std::size_t open) const {
    std::vector<bool> seen(static_cast<std::size_t>(rank), false);
    for (std::size_t i = 0; i < m2m.size(); ++i) {
      if (m2m[i] < 0 || m2m[i] >= rank) {
        fail_invalid(fmt::format("minor_to_major entry {} is not a dimension of this rank-{} shape",
                                 m2m[i], rank),
                     columns[i]);
      }
      if (seen[static_cast<std::size_t>(m2m[i])]) {
        fail_invalid(fmt::format("dimension {} appears twice in minor_to_major", m2m[i]),
                     columns[i]);
      }
      seen[static_cast<std::size_t>(m2m[i])] = true;
    }
    if (static_cast<int>(m2m.size()) != rank) {
      fail_invalid(fmt::format("minor_to_major lists {} dimensions but the shape has rank {}",
                               m2m.size(), rank),
                   open);
    }
  }

  void parse_properties(Layout& layout, const Shape& shape) {
    bool seen_tiles = false, seen_l = false, seen_e = false, seen_s = false;
    while (true) {
      skip_spaces();
      const std::size_t column = pos_;
      const char c = peek();
      if (c == '}' || c == '\0') return;
      auto once = [&](bool& seen, const char* name) {
        if (seen) fail_invalid(fmt::format("layout property {} is given twice", name), column);
        seen = true;
      };
      if (c == 'T') {
        once(seen_tiles, "T");
        ++pos_;
        skip_spaces();
        if (peek() != '(') fail("expected '(' to start a tile after T", pos_);
        while (peek() == '(') {
          if (static_cast<int>(layout.tiles.size()) == kMaxTileLevels) {
            fail_unsupported_at(fmt::format("more than {} tiles: tessera's tile depth limit is {}",
                                            kMaxTileLevels, kMaxTileLevels),
                                pos_);
          }
          layout.tiles.push_back(parse_tile());
          skip_spaces();
        }
      } else if (c == 'L') {
        once(seen_l, "L");
        ++pos_;
        const int64_t n = parse_parenthesized("the tail padding alignment");
        if (n < 1)
          fail_invalid(fmt::format("L({}): tail padding alignment must be at least 1", n), column);
        layout.tail_padding_alignment_in_elements = n;
      } else if (c == 'E') {
        once(seen_e, "E");
        ++pos_;
        const int64_t n = parse_parenthesized("the element size in bits");
        const int min_bits = bit_width(shape.element_type);
        if (n < 0 || (n != 0 && n < min_bits) || n > kMaxElementBits) {
          fail_invalid(
              fmt::format("E({}): element size must be 0 (the default) or from {} ({}'s "
                          "bits) to {} bits",
                          n, min_bits, element_type_name(shape.element_type), kMaxElementBits),
              column);
        }
        layout.element_size_in_bits = n;
      } else if (c == 'S' && pos_ + 1 < text_.size() && text_[pos_ + 1] == 'C') {
        fail_unsupported("layout property SC (split configs) is not supported by tessera");
      } else if (c == 'S') {
        once(seen_s, "S");
        ++pos_;
        const int64_t n = parse_parenthesized("the memory space");
        if (n < 0) fail_invalid(fmt::format("S({}): memory space must not be negative", n), column);
        layout.memory_space = n;
      } else if (c == 'D') {
        fail_unsupported(
            "layout property D (dimension level types, sparse arrays) is not supported "
            "by tessera");
      } else if (c == '#') {
        fail_unsupported(
            "layout property # (index primitive type, sparse arrays) is not supported "
            "by tessera");
      } else if (c == '*') {
        fail_unsupported(
            "layout property * (pointer primitive type, sparse arrays) is not "
            "supported by tessera");
      } else if (c == 'P') {
        fail_unsupported("layout property P (physical shape) is not supported by tessera");
      } else if (c == 'M') {
        fail_unsupported("layout property M (dynamic shape metadata) is not supported by tessera");
      } else {
        fail(fmt::format("unknown layout property '{}'; expected T, L, E or S", c), column);
      }
    }
  }

  int64_t parse_parenthesized(const char* what) {
    expect('(', "expected '('");
    const int64_t n = parse_integer(what);
    expect(')', "expected ')'");
    return n;
  }

  Tile parse_tile() {
    Tile tile;
    const std::size_t open = pos_;
    ++pos_;  // '('
    skip_spaces();
    if (peek() == ')') fail_invalid("a tile must have at least one dimension", open);
    std::size_t last_column = pos_;
    while (true) {
      skip_spaces();
      last_column = pos_;
      if (peek() == '*') {
        ++pos_;
        tile.dimensions.push_back(Tile::kCombineDimension);
      } else {
        const int64_t t = parse_integer("a tile dimension or '*'");
        if (t <= 0) {
          fail_invalid(fmt::format("tile dimension {} must be positive (or '*' to combine)", t),
                       last_column);
        }
        tile.dimensions.push_back(t);
      }
      skip_spaces();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      break;
    }
    if (tile.dimensions.back() == Tile::kCombineDimension) {
      fail_invalid(
          "'*' cannot be the most minor tile entry: there is no more minor dimension to "
          "combine it with",
          last_column);
    }
    expect(')', "expected ',' or ')' in the tile");
    return tile;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  bool layout_written_ = false;
};

template <typename Range>
std::string join(const Range& values) {
  std::string out;
  for (auto v : values) {
    if (!out.empty()) out += ',';
    out += fmt::format("{}", v);
  }
  return out;
}

}  // namespace

Shape parse_shape(std::string_view text) {
  return Parser(text).parse();
}

Shape parse_shape(std::string_view text, bool& layout_written) {
  Parser parser(text);
  Shape shape = parser.parse();
  layout_written = parser.layout_written();
  return shape;
}

std::string print_tile(const Tile& tile) {
  std::string out = "(";
  for (std::size_t i = 0; i < tile.dimensions.size(); ++i) {
    if (i > 0) out += ',';
    out += tile.dimensions[i] == Tile::kCombineDimension ? std::string("*")
                                                         : fmt::format("{}", tile.dimensions[i]);
  }
  return out + ")";
}

std::string print_layout(const Layout& layout) {
  std::string properties;
  if (!layout.tiles.empty()) {
    properties += 'T';
    for (const Tile& tile : layout.tiles) properties += print_tile(tile);
  }
  if (layout.tail_padding_alignment_in_elements != 1) {
    properties += fmt::format("L({})", layout.tail_padding_alignment_in_elements);
  }
  if (layout.element_size_in_bits != 0) {
    properties += fmt::format("E({})", layout.element_size_in_bits);
  }
  if (layout.memory_space != 0) properties += fmt::format("S({})", layout.memory_space);
  std::string out = "{" + join(layout.minor_to_major);
  if (!properties.empty()) out += ":" + properties;
  return out + "}";
}

std::string print_shape(const Shape& shape) {
  std::string out =
      fmt::format("{}[{}]", element_type_name(shape.element_type), join(shape.dimensions));
  const std::string layout = print_layout(shape.layout);
  if (shape.dimensions.empty() && layout == "{}") return out;  // XLA omits "{}" on scalars
  return out + layout;
}

}  // namespace tessera::xla
