#include "tessera/inputs/jax_layout.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "tessera/error.h"
#include "tessera/xla/notation.h"

namespace tessera::inputs {
namespace {

class ReprReader {
 public:
  explicit ReprReader(std::string_view text) : text_(text) {}

  [[noreturn]] void fail(std::string_view what) const {
    throw Error(ErrorKind::kSyntax, fmt::format("JAX layout: {} at column {}", what, pos_ + 1));
  }
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
  int64_t integer() {
    skip_spaces();
    const std::size_t start = pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    if (pos_ == start || pos_ - start > 18) fail("expected a non-negative integer");
    return std::stoll(std::string(text_.substr(start, pos_ - start)));
  }
  // "(0, 1)", "(0,)", "()"
  std::vector<int64_t> integer_tuple() {
    if (!accept('(')) fail("expected '('");
    std::vector<int64_t> out;
    while (!accept(')')) {
      out.push_back(integer());
      if (!accept(',') && !(skip_spaces(), pos_ < text_.size() && text_[pos_] == ')')) {
        fail("expected ',' or ')'");
      }
      if (out.size() > 64) fail("too many entries");
    }
    return out;
  }
  // "((8, 128), (2, 1))", "()", "None"
  std::vector<xla::Tile> tiling() {
    skip_spaces();
    if (text_.substr(pos_, 4) == "None") {
      pos_ += 4;
      return {};
    }
    if (!accept('(')) fail("expected '(' opening the tiling");
    std::vector<xla::Tile> tiles;
    while (!accept(')')) {
      tiles.push_back({integer_tuple()});
      accept(',');
      if (tiles.size() > 16) fail("too many tiles");
    }
    return tiles;
  }
  // Moves past "key=" when the repr has it (keys are matched as whole words).
  bool find_key(std::string_view key) {
    for (std::size_t at = text_.find(key); at != std::string_view::npos;
         at = text_.find(key, at + 1)) {
      const bool word_start =
          at == 0 ||
          !(std::isalnum(static_cast<unsigned char>(text_[at - 1])) || text_[at - 1] == '_');
      if (word_start && text_.substr(at + key.size(), 1) == "=") {
        pos_ = at + key.size() + 1;
        return true;
      }
    }
    return false;
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

std::string python_tuple(const std::vector<int64_t>& v) {
  if (v.size() == 1) return fmt::format("({},)", v[0]);
  return fmt::format("({})", fmt::join(v, ", "));
}

}  // namespace

JaxLayout parse_jax_layout(std::string_view repr) {
  if (repr.find("AUTO") != std::string_view::npos) {
    throw Error(ErrorKind::kInvalid,
                "JAX layout: an AUTO layout is chosen by the compiler; give the compiled "
                "array's x.format (or its layout) instead");
  }
  if (repr.find("Layout(") == std::string_view::npos) {
    throw Error(
        ErrorKind::kSyntax,
        "JAX layout: expected Layout(major_to_minor=..., tiling=...) or Format(layout=...)");
  }
  ReprReader reader(repr);
  JaxLayout layout;
  if (!reader.find_key("major_to_minor")) reader.fail("missing major_to_minor=");
  layout.major_to_minor = reader.integer_tuple();
  if (reader.find_key("tiling") || reader.find_key("_tiling")) layout.tiling = reader.tiling();
  if (reader.find_key("sub_byte_element_size_in_bits")) {
    layout.sub_byte_element_size_in_bits = reader.integer();
  }
  return layout;
}

xla::Shape apply_jax_layout(xla::Shape shape, const JaxLayout& layout) {
  std::vector<int64_t> sorted = layout.major_to_minor;
  std::sort(sorted.begin(), sorted.end());
  bool permutation = sorted.size() == shape.dimensions.size();
  for (std::size_t i = 0; permutation && i < sorted.size(); ++i) {
    permutation = sorted[i] == static_cast<int64_t>(i);
  }
  if (!permutation) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("JAX layout: major_to_minor {} is not an order of the {} dimensions "
                            "of {}",
                            python_tuple(layout.major_to_minor), shape.dimensions.size(),
                            xla::print_shape(shape)));
  }
  shape.layout = xla::Layout{};
  shape.layout.minor_to_major.assign(layout.major_to_minor.rbegin(), layout.major_to_minor.rend());
  shape.layout.tiles = layout.tiling;
  shape.layout.element_size_in_bits = layout.sub_byte_element_size_in_bits;
  // Validated by the one parser every layout goes through.
  return xla::parse_shape(xla::print_shape(shape));
}

std::string jax_layout_repr(const xla::Layout& layout) {
  std::vector<std::string> tiles;
  for (const auto& t : layout.tiles) tiles.push_back(python_tuple(t.dimensions));
  const std::string tiling = tiles.size() == 1 ? fmt::format("({},)", tiles[0])
                                               : fmt::format("({})", fmt::join(tiles, ", "));
  return fmt::format("Layout(major_to_minor={}, tiling={}, sub_byte_element_size_in_bits={})",
                     python_tuple({layout.minor_to_major.rbegin(), layout.minor_to_major.rend()}),
                     tiling, layout.element_size_in_bits);
}

std::string jax_order_note(const JaxLayout& layout) {
  return fmt::format("JAX major_to_minor {} is XLA minor_to_major {{{}}}: the same order reversed",
                     python_tuple(layout.major_to_minor),
                     fmt::join(layout.major_to_minor.rbegin(), layout.major_to_minor.rend(), ","));
}

}  // namespace tessera::inputs
