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
// names and JSON output stay printable UTF-8. They once became '?', which the shape
// parser then took for a dynamic dimension (tests/inputs/input_readers_test.cpp).
std::string printable_line(std::string_view line) {
  std::string spaced(line);
  std::replace(spaced.begin(), spaced.end(), '\t', ' ');
  return printable_utf8(spaced);
}

// An escaped message inside a line: Python's repr of an exception ("RuntimeError:
// 'RESOURCE_EXHAUSTED: ...\n\n  1. Size: ...'"), a JSON log field, a traceback line. Its "\n"
// are the message's line breaks. Only lines that carry what the readers look for are unescaped,
// so a backslash-n elsewhere (a string literal in an HLO attribute) stays as written.
bool holds_escaped_message(std::string_view line) {
  if (line.find("\\n") == std::string_view::npos) return false;
  for (std::string_view marker : {"Size: ", "Shape: ", "allocations in ", "RESOURCE_EXHAUSTED",
                                  "Resource exhausted", "Ran out of memory", "HloModule"}) {
    if (line.find(marker) != std::string_view::npos) return true;
  }
  return false;
}

// Python's and JSON's escapes that a message holds: \n, \t, \r, \\, \' and \".
std::string unescaped(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] != '\\' || i + 1 == line.size()) {
      out += line[i];
      continue;
    }
    switch (line[i + 1]) {
      case 'n':
        out += '\n';
        break;
      case 't':
        out += ' ';
        break;
      case 'r':
        break;
      case '\\':
      case '\'':
      case '"':
        out += line[i + 1];
        break;
      default:
        out += line[i];
        continue;
    }
    ++i;
  }
  return out;
}

// True when the whole text is one escaped message (fewer than two real line breaks).
bool single_escaped_message(std::string_view text) {
  const std::size_t first = text.find('\n');
  const bool few_breaks =
      first == std::string_view::npos || text.find('\n', first + 1) == std::string_view::npos;
  return few_breaks && text.find("\\n") != std::string_view::npos;
}

// One physical line as the readers see it.
std::string_view without_prefix(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  line.remove_prefix(log_prefix_length(line));
  return line;
}

}  // namespace

void for_each_input_line(std::string_view text, const InputLineVisitor& visit) {
  const bool single_message = single_escaped_message(text);
  int64_t number = 0;
  for (std::size_t start = 0; start <= text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    ++number;
    const std::string_view line = without_prefix(text.substr(start, end - start));
    if (single_message || holds_escaped_message(line)) {
      const std::string message = unescaped(line);
      for (std::size_t from = 0; from <= message.size();) {
        std::size_t to = message.find('\n', from);
        if (to == std::string::npos) to = message.size();
        visit(printable_line(without_prefix(std::string_view(message).substr(from, to - from))),
              number);
        from = to + 1;
      }
    } else {
      visit(printable_line(line), number);
    }
    if (end == text.size()) break;
    start = end + 1;
  }
}

std::vector<std::string> input_lines(std::string_view text) {
  std::vector<std::string> lines;
  for_each_input_line(text, [&](std::string_view line, int64_t) { lines.emplace_back(line); });
  return lines;
}

}  // namespace tessera::inputs
