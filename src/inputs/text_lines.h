// The lines of a text with their numbers (from 1), without copying it: the readers of the
// compiler's dump files (buffer assignment, memory-usage report) walk their text this way.
#pragma once

#include <cstdint>
#include <string_view>

namespace tessera::inputs {

template <typename Visit>  // void(std::string_view line, int64_t number)
void for_each_numbered_line(std::string_view text, Visit&& visit) {
  int64_t number = 0;
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    visit(text.substr(begin, end - begin), ++number);
    begin = end + 1;
  }
}

}  // namespace tessera::inputs
