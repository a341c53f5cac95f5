#include "json_writer.h"

#include <fmt/format.h>

#include <cmath>

namespace tessera::inputs {
namespace {

// Length of the valid UTF-8 sequence at s[i], or 0.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto lead = static_cast<unsigned char>(s[i]);
  const std::size_t n = lead < 0x80           ? 1
                        : (lead >> 5) == 0x6  ? 2
                        : (lead >> 4) == 0xE  ? 3
                        : (lead >> 3) == 0x1E ? 4
                                              : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return 0;
  }
  return n;
}

void escaped(std::string& out, std::string_view text) {
  out += '"';
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x80) {
      const std::size_t n = utf8_length(text, i);
      if (n == 0) {
        out += "\xEF\xBF\xBD";  // U+FFFD
        ++i;
      } else {
        out.append(text.substr(i, n));
        i += n;
      }
      continue;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (byte < 0x20) {
          out += fmt::format("\\u{:04x}", byte);
        } else {
          out += c;
        }
    }
    ++i;
  }
  out += '"';
}

}  // namespace

void JsonWriter::newline() {
  out_ += '\n';
  out_.append(static_cast<std::size_t>(2 * depth_), ' ');
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (empty_.empty()) return;  // the top-level value
  if (!empty_.back()) out_ += ',';
  empty_.back() = false;
  newline();
}

void JsonWriter::key(std::string_view name) {
  before_value();
  escaped(out_, name);
  out_ += ": ";
  after_key_ = true;
}

void JsonWriter::open(char bracket) {
  before_value();
  out_ += bracket;
  empty_.push_back(true);
  ++depth_;
}

void JsonWriter::close(char bracket) {
  --depth_;
  const bool was_empty = empty_.back();
  empty_.pop_back();
  if (!was_empty) newline();
  out_ += bracket;
}

void JsonWriter::value(std::string_view text) {
  before_value();
  escaped(out_, text);
}

void JsonWriter::value(int64_t number) {
  before_value();
  fmt::format_to(std::back_inserter(out_), "{}", number);
}

void JsonWriter::value(double number) {
  before_value();
  if (!std::isfinite(number)) {
    out_ += "null";
    return;
  }
  // The shortest text that reads back as the same double, with a ".0" for a whole number, as
  // nlohmann's dump prints doubles.
  const std::size_t start = out_.size();
  fmt::format_to(std::back_inserter(out_), "{}", number);
  if (out_.find_first_of(".eE", start) == std::string::npos) out_ += ".0";
}

void JsonWriter::value(bool flag) {
  before_value();
  out_ += flag ? "true" : "false";
}

void JsonWriter::value(const std::vector<int64_t>& numbers) {
  begin_array();
  for (int64_t n : numbers) value(n);
  end_array();
}

void JsonWriter::value(const std::vector<std::string>& texts) {
  begin_array();
  for (const std::string& t : texts) value(std::string_view(t));
  end_array();
}

void JsonWriter::raw(std::string_view json) {
  before_value();
  for (char c : json) {
    out_ += c;
    if (c == '\n') out_.append(static_cast<std::size_t>(2 * depth_), ' ');
  }
}

}  // namespace tessera::inputs
