// Which part of a large array a picture shows: a window of rows and columns.
#pragma once

#include <cstdint>
#include <string_view>

namespace tessera::render {

// Half-open ranges over the picture's grid: rows [row_begin, row_end), cols [col_begin, col_end).
struct GridWindow {
  int64_t row_begin = 0;
  int64_t row_end = 0;
  int64_t col_begin = 0;
  int64_t col_end = 0;
  int64_t cells() const { return (row_end - row_begin) * (col_end - col_begin); }
};

// Parses "R0:R1,C0:C1" (Python-style half-open slices; "R0:R1" alone keeps all columns, written
// as col_end = -1). Example: parse_window("0:8,128:256") == {0, 8, 128, 256}.
// Throws Error(kSyntax) for malformed text and Error(kInvalid) for empty or reversed ranges.
GridWindow parse_window(std::string_view text);

// Checks `window` against a rows x cols grid (resolving col_end -1 to cols) and the cell cap.
// Throws Error(kOutOfRange) naming the bound it crosses, Error(kInvalid) when it has more than
// `max_cells` cells.
GridWindow resolve_window(GridWindow window, int64_t rows, int64_t cols, int64_t max_cells);

// The window shown when none is given: everything if it has at most `max_cells` cells, else
// the top-left corner, at most `max_columns` columns wide.
GridWindow default_window(int64_t rows, int64_t cols, int64_t max_cells, int64_t max_columns = 64);

}  // namespace tessera::render
