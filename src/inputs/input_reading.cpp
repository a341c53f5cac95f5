// Choosing a reader, and the reader of last resort: every shape in any text.
#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <iostream>
#include <string>

#include "tessera/error.h"
#include "tessera/inputs/input_arrays.h"
#include "tessera/inputs/shapes_in_text.h"
#include "tessera/regular_file.h"

namespace tessera::inputs {
namespace {

constexpr std::string_view kNoShapeFound = "no XLA shape found in the input";

}  // namespace

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
  std::vector<InputArray> with_layout, without_layout;
  for_each_input_line(text, [&](std::string_view line, int64_t number) {
    // One more than room is left for: then the cap is reached with arrays unread.
    const std::size_t room = kMaxInputArrays - (with_layout.size() + without_layout.size());
    for (const ShapeToken& s : find_shapes(line, room + 1)) {
      auto& list = s.has_layout ? with_layout : without_layout;
      if (with_layout.size() + without_layout.size() >= kMaxInputArrays) {
        reading.truncated = true;
        break;
      }
      list.push_back({s.text, "", "line " + std::to_string(number), number, {}, {}, {}, {}});
    }
  });
  reading.arrays = with_layout.empty() ? std::move(without_layout) : std::move(with_layout);
  if (reading.arrays.empty()) reading.warnings.emplace_back(kNoShapeFound);
  return reading;
}

bool looks_like_path(std::string_view argument) {
  if (argument.empty() || argument.find('[') != std::string_view::npos) return false;
  if (argument.find_first_of("/\\") != std::string_view::npos) return true;
  const std::size_t dot = argument.rfind('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == argument.size()) return false;
  const std::string_view extension = argument.substr(dot + 1);
  return extension.size() <= 8 && std::all_of(extension.begin(), extension.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) != 0;
         });
}

std::string read_input_text(const std::string& path) {
  if (path != "-") {
    try {
      return read_regular_file(path, static_cast<int64_t>(kMaxInputBytes));
    } catch (const Error& error) {
      struct stat status {};
      if (::stat(path.c_str(), &status) != 0 || !S_ISFIFO(status.st_mode)) throw;
      // `tessera explain <(cmd)`: the same text arrives whole through standard input.
      throw Error(error.kind(), error.message() +
                                    "; send it to standard input and give '-' instead "
                                    "(cmd | tessera explain -)");
    }
  }
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

InputReading read_input(std::string_view bytes) {
  std::string decoded;
  const std::string_view text = utf8_view(bytes, decoded);
  InputReading reading;
  if (text.find("allocations in ") != std::string_view::npos ||
      (text.find("Shape: ") != std::string_view::npos &&
       text.find("Size: ") != std::string_view::npos)) {
    reading = read_oom_report(text);
    // A log that mentions a Shape: and a Size: without holding a report: its shapes, then.
    if (reading.arrays.empty()) reading = read_shape_text(text);
  } else if (text.find("HloModule") != std::string_view::npos) {
    reading = read_hlo_module(text);
  } else {
    reading = read_shape_text(text);
  }
  reading.out_of_memory = find_out_of_memory(text);
  if (!reading.out_of_memory.empty() && reading.arrays.empty()) {
    // The summary is what the text holds: "no XLA shape found" would say it held nothing.
    std::erase(reading.warnings, std::string(kNoShapeFound));
  }
  if (reading.truncated) {
    reading.warnings.push_back("only the first " + std::to_string(kMaxInputArrays) +
                               " arrays were read");
  }
  return reading;
}

}  // namespace tessera::inputs
