#include "tessera/xla/jax_layout.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "tessera/error.h"
#include "tessera/utf8_text.h"
#include "tessera/xla/notation.h"

namespace tessera::xla {
namespace {

bool identifier_character(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

std::string python_tuple(const std::vector<int64_t>& v) {
  if (v.size() == 1) return fmt::format("({},)", v[0]);
  return fmt::format("({})", fmt::join(v, ", "));
}

// "((8, 128), (2, 1))", "((8, 128),)"
std::string python_tiling(const std::vector<xla::Tile>& tiling) {
  std::vector<std::string> tiles;
  for (const auto& t : tiling) tiles.push_back(python_tuple(t.dimensions));
  return tiles.size() == 1 ? fmt::format("({},)", tiles[0])
                           : fmt::format("({})", fmt::join(tiles, ", "));
}

// Reads the repr as the Python call it is: NAME(key=value, ...), nested calls for the wrapped
// layout, every parenthesis balanced, nothing after the last one (junk after the
// layout, or a missing ')', was accepted). Errors put a caret under the user's own text.
class ReprReader {
 public:
  explicit ReprReader(std::string_view text) : text_(text) {}

  JaxLayout read() {
    JaxLayout layout;
    layout.repr = std::string(text_);
    call(layout);
    skip_spaces();
    if (pos_ < text_.size()) fail("unexpected text after the layout's closing ')'");
    if (!layout.major_to_minor_at) fail_at("no major_to_minor= in the layout", 0);
    return layout;
  }

 private:
  [[noreturn]] void fail_at(std::string_view what, std::size_t at) const {
    throw Error(ErrorKind::kSyntax, fmt::format("JAX layout: {}", what), text_, at);
  }
  [[noreturn]] void fail(std::string_view what) const { fail_at(what, pos_); }

  void skip_spaces() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool accept(char c) {
    skip_spaces();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::string_view identifier() {
    skip_spaces();
    const std::size_t start = pos_;
    while (pos_ < text_.size() && identifier_character(text_[pos_])) ++pos_;
    return text_.substr(start, pos_ - start);
  }
  // After the last argument of a call or tuple opened at `open`.
  void close(std::size_t open) {
    if (accept(')')) return;
    if (pos_ >= text_.size()) {
      fail(
          fmt::format("missing ')' closing the '(' at column {}", display_column(text_, open) + 1));
    }
    fail("expected ',' or ')'");
  }

  int64_t integer() {
    skip_spaces();
    const std::size_t start = pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    if (pos_ == start || pos_ - start > 18) fail("expected a non-negative integer");
    return std::stoll(std::string(text_.substr(start, pos_ - start)));
  }
  // "(0, 1)", "(0,)", "()"
  std::vector<int64_t> integer_tuple() {
    skip_spaces();
    const std::size_t open = pos_;
    if (!accept('(')) fail("expected '('");
    std::vector<int64_t> out;
    while (!accept(')')) {
      out.push_back(integer());
      if (out.size() > 64) fail("too many entries");
      if (!accept(',')) {
        close(open);
        break;
      }
    }
    return out;
  }
  // "((8, 128), (2, 1))", "()", "None"
  std::vector<xla::Tile> tiling() {
    skip_spaces();
    const std::size_t start = pos_;
    if (identifier() == "None") return {};
    pos_ = start;
    if (!accept('(')) fail("expected '(' opening the tiling, or None");
    std::vector<xla::Tile> tiles;
    while (!accept(')')) {
      tiles.push_back({integer_tuple()});
      if (tiles.size() > 16) fail("too many tiles");
      if (!accept(',')) {
        close(start);
        break;
      }
    }
    return tiles;
  }
  // A value tessera does not read (a sharding): skipped whole, brackets balanced, quotes closed.
  void skip_value() {
    std::string open;  // the closing brackets still expected
    std::vector<std::size_t> where;
    skip_spaces();
    for (; pos_ < text_.size(); ++pos_) {
      const char c = text_[pos_];
      if (c == '\'' || c == '"') {
        const std::size_t end = text_.find(c, pos_ + 1);
        if (end == std::string_view::npos) fail("a quote that is not closed");
        pos_ = end;
      } else if (c == '(' || c == '[' || c == '{') {
        open += c == '(' ? ')' : c == '[' ? ']' : '}';
        where.push_back(pos_);
      } else if (c == ')' || c == ']' || c == '}') {
        if (open.empty()) {
          if (c == ')') return;  // the end of the enclosing call
          fail(fmt::format("'{}' closes nothing", c));
        }
        if (c != open.back()) fail(fmt::format("expected '{}', found '{}'", open.back(), c));
        open.pop_back();
        where.pop_back();
      } else if (c == ',' && open.empty()) {
        return;
      }
    }
    if (!open.empty()) {
      fail(fmt::format("missing '{}' closing the one at column {}", open.back(),
                       display_column(text_, where.back()) + 1));
    }
  }

  // NAME(...): Layout/DeviceLocalLayout hold the fields; Format (and older JAX's Layout with
  // device_local_layout=) wrap one.
  void call(JaxLayout& layout) {
    skip_spaces();
    const std::size_t name_at = pos_;
    const std::string_view name = identifier();
    if (name != "Layout" && name != "DeviceLocalLayout" && name != "Format") {
      fail_at("expected Layout(major_to_minor=..., tiling=...) or Format(layout=...)", name_at);
    }
    skip_spaces();
    const std::size_t open = pos_;
    if (!accept('(')) fail(fmt::format("expected '(' after {}", name));
    std::vector<std::string_view> seen;
    for (bool first = true; !accept(')'); first = false) {
      skip_spaces();
      const std::size_t key_at = pos_;
      std::string_view key = identifier();
      if (!accept('=')) {
        // Format(Layout(...), sharding): the layout may come first without its keyword.
        if (!first || name != "Format") fail_at("expected NAME=value", key_at);
        pos_ = key_at;
        key = "layout";
      }
      // tiling= and _tiling= (and the other spellings) name one field: both given is the field
      // twice, not the last one winning.
      const std::string_view field = key == "_tiling" ? "tiling"
                                     : key == "_sub_byte_element_size_in_bits"
                                         ? "sub_byte_element_size_in_bits"
                                     : key == "device_local_layout" ? "layout"
                                                                    : key;
      if (std::find(seen.begin(), seen.end(), field) != seen.end()) {
        fail_at(field == key ? fmt::format("'{}' is given twice", key)
                             : fmt::format("'{}' is given twice (as '{}' too)", field, key),
                key_at);
      }
      seen.push_back(field);
      skip_spaces();
      if (key == "layout" || key == "device_local_layout") {
        call(layout);
      } else if (key == "sharding") {
        skip_value();
      } else if (name == "Format") {
        fail_at(fmt::format("unknown field '{}' of Format (known: layout, sharding)", key), key_at);
      } else if (key == "major_to_minor") {
        layout.major_to_minor_at = pos_;
        layout.major_to_minor = integer_tuple();
      } else if (key == "tiling" || key == "_tiling") {
        layout.tiling_at = pos_;
        layout.tiling = tiling();
      } else if (key == "sub_byte_element_size_in_bits" ||
                 key == "_sub_byte_element_size_in_bits") {
        layout.sub_byte_element_size_at = pos_;
        layout.sub_byte_element_size_in_bits = integer();
      } else {
        fail_at(fmt::format("unknown field '{}' (known: major_to_minor, tiling, "
                            "sub_byte_element_size_in_bits)",
                            key),
                key_at);
      }
      if (!accept(',')) {
        close(open);
        break;
      }
    }
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

// `shape` laid out by `layout` and checked by the one parser every layout goes through; an error
// points at the field of the repr that caused it (not into tessera's own XLA text).
xla::Shape checked(const xla::Shape& shape, const JaxLayout& layout, std::optional<std::size_t> at,
                   std::string_view field) {
  try {
    return xla::parse_shape(xla::print_shape(shape));
  } catch (const Error& e) {
    const std::string message = fmt::format("JAX layout: {} does not fit {}[{}]: {}", field,
                                            element_type_name(shape.element_type),
                                            fmt::join(shape.dimensions, ","), e.message());
    if (layout.repr.empty() || !at) throw Error(e.kind(), message);
    throw Error(e.kind(), message, layout.repr, *at);
  }
}

}  // namespace

JaxLayout parse_jax_layout(std::string_view repr) {
  if (repr.find("AUTO") != std::string_view::npos) {
    throw Error(ErrorKind::kInvalid,
                "JAX layout: an AUTO layout is chosen by the compiler; give the compiled "
                "array's x.format (or its layout) instead");
  }
  return ReprReader(repr).read();
}

xla::Shape apply_jax_layout(xla::Shape shape, const JaxLayout& layout) {
  std::vector<int64_t> sorted = layout.major_to_minor;
  std::sort(sorted.begin(), sorted.end());
  bool permutation = sorted.size() == shape.dimensions.size();
  for (std::size_t i = 0; permutation && i < sorted.size(); ++i) {
    permutation = sorted[i] == static_cast<int64_t>(i);
  }
  if (!permutation) {
    const std::string message = fmt::format(
        "JAX layout: major_to_minor {} is not an order of the {} dimensions of {}",
        python_tuple(layout.major_to_minor), shape.dimensions.size(), xla::print_shape(shape));
    if (layout.repr.empty() || !layout.major_to_minor_at) {
      throw Error(ErrorKind::kInvalid, message);
    }
    throw Error(ErrorKind::kInvalid, message, layout.repr, *layout.major_to_minor_at);
  }
  shape.layout = xla::Layout{};
  shape.layout.minor_to_major.assign(layout.major_to_minor.rbegin(), layout.major_to_minor.rend());
  shape.layout.tiles = layout.tiling;
  checked(shape, layout, layout.tiling_at, "tiling " + python_tiling(layout.tiling));
  shape.layout.element_size_in_bits = layout.sub_byte_element_size_in_bits;
  return checked(
      shape, layout, layout.sub_byte_element_size_at,
      fmt::format("sub_byte_element_size_in_bits={}", layout.sub_byte_element_size_in_bits));
}

std::string shape_with_jax_layout(std::string_view shape_text, std::string_view repr) {
  bool layout_written = false;
  const xla::Shape written = xla::parse_shape(shape_text, layout_written);
  const xla::Shape laid_out = apply_jax_layout(written, parse_jax_layout(repr));
  // A SHAPE that writes its own layout: the two must agree (the repr silently won).
  if (layout_written && written.layout != laid_out.layout) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("the shape '{}' has a layout of its own and the JAX layout gives {}; "
                            "give the shape without a layout (or drop --jax-layout)",
                            shape_text, xla::print_shape(laid_out)));
  }
  return xla::print_shape(laid_out);
}

std::string jax_layout_repr(const xla::Layout& layout) {
  return fmt::format("Layout(major_to_minor={}, tiling={}, sub_byte_element_size_in_bits={})",
                     python_tuple({layout.minor_to_major.rbegin(), layout.minor_to_major.rend()}),
                     python_tiling(layout.tiles), layout.element_size_in_bits);
}

std::string jax_order_note(const JaxLayout& layout) {
  return fmt::format("JAX major_to_minor {} is XLA minor_to_major {{{}}}: the same order reversed",
                     python_tuple(layout.major_to_minor),
                     fmt::join(layout.major_to_minor.rbegin(), layout.major_to_minor.rend(), ","));
}

}  // namespace tessera::xla
