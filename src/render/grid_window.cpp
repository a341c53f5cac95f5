#include "tessera/render/grid_window.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <string>

#include "tessera/error.h"

namespace tessera::render {
namespace {

int64_t parse_bound(std::string_view window, std::string_view text) {
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < 0) {
    throw Error(ErrorKind::kSyntax,
                fmt::format("window '{}': '{}' is not a non-negative integer; write R0:R1,C0:C1 "
                            "such as 0:8,0:16",
                            window, text));
  }
  return value;
}

void parse_range(std::string_view window, std::string_view text, int64_t& begin, int64_t& end) {
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    throw Error(
        ErrorKind::kSyntax,
        fmt::format("window '{}': range '{}' needs a ':' (BEGIN:END, end excluded)", window, text));
  }
  begin = parse_bound(window, text.substr(0, colon));
  end = parse_bound(window, text.substr(colon + 1));
  if (end <= begin) {
    throw Error(
        ErrorKind::kInvalid,
        fmt::format("window '{}': range {}:{} is empty (the end is excluded)", window, begin, end));
  }
}

}  // namespace

GridWindow parse_window(std::string_view text) {
  GridWindow window;
  const std::size_t comma = text.find(',');
  parse_range(text, text.substr(0, comma), window.row_begin, window.row_end);
  if (comma == std::string_view::npos) {
    window.col_end = -1;
  } else {
    parse_range(text, text.substr(comma + 1), window.col_begin, window.col_end);
  }
  return window;
}

GridWindow resolve_window(GridWindow window, int64_t rows, int64_t cols, int64_t max_cells) {
  if (window.col_end == -1) window.col_end = cols;
  if (window.row_end > rows) {
    throw Error(ErrorKind::kOutOfRange,
                fmt::format("window rows {}:{} reach past the picture's {} rows", window.row_begin,
                            window.row_end, rows));
  }
  if (window.col_end > cols) {
    throw Error(ErrorKind::kOutOfRange,
                fmt::format("window columns {}:{} reach past the picture's {} columns",
                            window.col_begin, window.col_end, cols));
  }
  if (window.cells() > max_cells) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("window {}:{},{}:{} has {} cells; at most {} are drawn, choose a "
                            "smaller window",
                            window.row_begin, window.row_end, window.col_begin, window.col_end,
                            window.cells(), max_cells));
  }
  return window;
}

GridWindow default_window(int64_t rows, int64_t cols, int64_t max_cells, int64_t max_columns) {
  if (rows * cols <= max_cells && cols <= max_columns) return {0, rows, 0, cols};
  const int64_t shown_cols = std::min(cols, max_columns);
  return {0, std::min(rows, std::max<int64_t>(1, max_cells / shown_cols)), 0, shown_cols};
}

}  // namespace tessera::render
