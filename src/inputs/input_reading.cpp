// Choosing a reader, and the reader of last resort: every shape in any text.
#include <fmt/format.h>

#include <iostream>
#include <string>

#include "tessera/error.h"
#include "tessera/inputs/input_arrays.h"
#include "tessera/inputs/shapes_in_text.h"
#include "tessera/regular_file.h"

namespace tessera::inputs {

std::string_view input_format_name(InputFormat format) {
  switch (format) {
    case InputFormat::kOomReport:
      return "oom_report";
    case InputFormat::kHloModule:
      return "hlo_module";
    case InputFormat::kShapeText:
      return "shape_text";
  }
  return "shape_text";
}

InputReading read_shape_text(std::string_view text) {
  InputReading reading;
  const std::vector<std::string> lines = input_lines(text);
  std::vector<InputArray> with_layout, without_layout;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    for (const ShapeToken& s : find_shapes(lines[i])) {
      auto& list = s.has_layout ? with_layout : without_layout;
      if (with_layout.size() + without_layout.size() >= kMaxInputArrays) break;
      list.push_back(
          {s.text, "", "line " + std::to_string(i + 1), static_cast<int64_t>(i) + 1, {}, {}, {}});
    }
  }
  reading.arrays = with_layout.empty() ? std::move(without_layout) : std::move(with_layout);
  if (reading.arrays.empty()) reading.warnings.push_back("no XLA shape found in the input");
  return reading;
}

std::string read_input_text(const std::string& path) {
  if (path != "-") return read_regular_file(path, static_cast<int64_t>(kMaxInputBytes));
  std::string text;
  char buffer[1 << 16];
  while (std::cin.read(buffer, sizeof buffer) || std::cin.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(std::cin.gcount()));
    if (text.size() > kMaxInputBytes) {
      throw Error(ErrorKind::kOutOfRange,
                  fmt::format("the standard input holds more than {} bytes", kMaxInputBytes));
    }
  }
  return text;
}

InputReading read_input(std::string_view text) {
  InputReading reading;
  if (text.find("allocations in ") != std::string_view::npos ||
      (text.find("Shape: ") != std::string_view::npos &&
       text.find("Size: ") != std::string_view::npos)) {
    reading = read_oom_report(text);
  } else if (text.find("HloModule") != std::string_view::npos) {
    reading = read_hlo_module(text);
  } else {
    reading = read_shape_text(text);
  }
  if (reading.arrays.size() >= kMaxInputArrays) {
    reading.warnings.push_back("only the first " + std::to_string(kMaxInputArrays) +
                               " arrays were read");
  }
  return reading;
}

}  // namespace tessera::inputs
