// Splitting input text into lines as the readers see them (log prefixes removed).
#include <algorithm>
#include <cctype>
#include <string>

#include "tessera/inputs/input_arrays.h"
#include "tessera/utf8_text.h"

namespace tessera::inputs {
namespace {

bool digits(std::string_view s, std::size_t at, std::size_t n) {
  if (at + n > s.size()) return false;
  for (std::size_t i = at; i < at + n; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

// Length of a glog/absl log prefix ending in "] ", or 0. Two forms appear in public reports:
// "2020-05-04 09:05:40.719745: E 1578 tensorflow/.../xla_util.cc:76] " (TensorFlow) and
// "E0504 09:05:40.719745 1578 file.cc:76] " (glog/absl).
std::size_t log_prefix_length(std::string_view line) {
  const bool tensorflow_form = digits(line, 0, 4) && line.size() > 4 && line[4] == '-' &&
                               digits(line, 5, 2) && digits(line, 8, 2);
  const bool glog_form = line.size() > 6 &&
                         std::string("IWEF").find(line[0]) != std::string::npos &&
                         digits(line, 1, 4) && line[5] == ' ';
  if (!tensorflow_form && !glog_form) return 0;
  const std::size_t close = line.find("] ", 0);
  if (close == std::string_view::npos || close > 400) {
    return line.size() >= 1 && line.back() == ']' && line.size() < 400 ? line.size() : 0;
  }
  return close + 2;
}

// Input text is the user's log: tabs become spaces, and bytes that are not UTF-8 and control
// characters become their escapes (`\xc3`, `\u0001`: tessera/utf8_text.h), so that warnings,
// names and JSON output stay printable UTF-8. Until issue 40 they became '?', which the shape
// parser then took for a dynamic dimension.
std::string printable_line(std::string_view line) {
  std::string spaced(line);
  std::replace(spaced.begin(), spaced.end(), '\t', ' ');
  return printable_utf8(spaced);
}

}  // namespace

std::vector<std::string> input_lines(std::string_view text) {
  std::string unescaped;
  // A message printed with repr() keeps its line breaks as the two characters '\' 'n'.
  if (text.find('\n') == std::string_view::npos || text.find("\\n") != std::string_view::npos) {
    std::size_t real_breaks = 0;
    for (char c : text) real_breaks += c == '\n';
    if (real_breaks < 2 && text.find("\\n") != std::string_view::npos) {
      for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == 'n') {
          unescaped += '\n';
          ++i;
        } else {
          unescaped += text[i];
        }
      }
      text = unescaped;
    }
  }
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    line.remove_prefix(log_prefix_length(line));
    lines.push_back(printable_line(line));
    if (end == text.size()) break;
    start = end + 1;
  }
  return lines;
}

}  // namespace tessera::inputs
