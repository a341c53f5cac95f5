#include "tessera/inputs/shapes_in_text.h"

#include <cctype>

#include "tessera/element_type.h"

namespace tessera::inputs {
namespace {

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.';
}

// End of the bracketed group opening at text[pos] (which is `open`), or npos when it does not
// close within kMaxShapeTextLength or contains a character no shape has.
std::size_t group_end(std::string_view text, std::size_t pos, char open, char close) {
  int depth = 0;
  const std::size_t limit = std::min(text.size(), pos + kMaxShapeTextLength);
  for (std::size_t i = pos; i < limit; ++i) {
    const char c = text[i];
    if (c == open) ++depth;
    if (c == close && --depth == 0) return i + 1;
    if (c == '\n' || c == '"' || c == ';') return std::string_view::npos;
  }
  return std::string_view::npos;
}

// The array shape token starting exactly at `pos`, if there is one.
std::optional<ShapeToken> array_at(std::string_view text, std::size_t pos) {
  if (pos > 0 && (is_word_char(text[pos - 1]) || text[pos - 1] == '%')) return std::nullopt;
  std::size_t i = pos;
  while (i < text.size() && i - pos < 16 && std::isalnum(static_cast<unsigned char>(text[i]))) ++i;
  if (i == pos || i >= text.size() || text[i] != '[') return std::nullopt;
  if (!parse_element_type(text.substr(pos, i - pos))) return std::nullopt;
  std::size_t end = group_end(text, i, '[', ']');
  if (end == std::string_view::npos) return std::nullopt;
  ShapeToken token;
  if (end < text.size() && text[end] == '{') {
    // A layout that does not close is text cut short: the shape without it would be another
    // array (a report cut inside "{1,2," disagreed with itself).
    const std::size_t layout_end = group_end(text, end, '{', '}');
    if (layout_end == std::string_view::npos) return std::nullopt;
    end = layout_end;
    token.has_layout = true;
  }
  token.text = std::string(text.substr(pos, end - pos));
  token.begin = pos;
  return token;
}

std::string child_index(const std::string& parent, std::size_t i) {
  if (parent.empty()) return "{" + std::to_string(i) + "}";
  return parent.substr(0, parent.size() - 1) + "," + std::to_string(i) + "}";
}

constexpr std::size_t kMaxCommentLength = 64;

}  // namespace

void skip_blanks(std::string_view text, std::size_t& pos) {
  while (pos < text.size()) {
    if (text[pos] == ' ' || text[pos] == '\t') {
      ++pos;
    } else if (text.substr(pos, 2) == "/*") {
      // HLO's comments are short ("/*index=12345*/"): looking further would make a line of
      // unclosed "/*" cost quadratic time.
      const std::size_t end = text.substr(pos, kMaxCommentLength).find("*/", 2);
      if (end == std::string_view::npos) return;  // not a comment: left for the caller to refuse
      pos += end + 2;
    } else {
      return;
    }
  }
}

namespace {

bool read_into(std::string_view text, std::size_t& pos, const std::string& index, int depth,
               std::vector<ShapeToken>& out) {
  skip_blanks(text, pos);
  if (pos >= text.size() || depth > 16) return false;
  if (text[pos] != '(') {
    auto token = array_at(text, pos);
    if (!token) return false;
    pos += token->text.size();
    token->index = index;
    out.push_back(std::move(*token));
    return true;
  }
  std::size_t i = pos + 1;
  for (std::size_t element = 0;; ++element) {
    skip_blanks(text, i);
    if (i < text.size() && text[i] == ')') break;  // "()" or a trailing element list end
    if (!read_into(text, i, child_index(index, element), depth + 1, out)) return false;
    skip_blanks(text, i);
    if (i < text.size() && text[i] == ',') {
      ++i;
      continue;
    }
    if (i < text.size() && text[i] == ')') break;
    return false;
  }
  pos = i + 1;
  return true;
}

}  // namespace

std::vector<ShapeToken> find_shapes(std::string_view text, std::size_t limit) {
  std::vector<ShapeToken> out;
  for (std::size_t pos = 0; pos < text.size() && out.size() < limit; ++pos) {
    if (!std::isalpha(static_cast<unsigned char>(text[pos]))) continue;
    if (auto token = array_at(text, pos)) {
      pos += token->text.size() - 1;
      out.push_back(std::move(*token));
    }
  }
  return out;
}

std::optional<std::vector<ShapeToken>> read_shape_at(std::string_view text, std::size_t& pos) {
  std::vector<ShapeToken> out;
  std::size_t i = pos;
  if (!read_into(text, i, "", 0, out)) return std::nullopt;
  pos = i;
  return out;
}

}  // namespace tessera::inputs
