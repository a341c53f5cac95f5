// XLA TPU out-of-memory reports: "Largest program allocations in hbm:" then numbered entries
//   1. Size: 32.00G
//      Operator: op_name="..." source_file="..." source_line=12     (newer reports)
//      Shape: s32[8388608,8,4]{2,1,0:T(8,128)}
//      Unpadded size: 1.00G
//      Extra memory due to padding: 31.00G (32.0x expansion)      (only when padded)
//      XLA label: %fusion.3 = s32[8388608,8,4]{2,1,0:T(8,128)} fusion(...)   (or "fusion.3 =
//      fusion(...)") Allocation type: HLO temp
//      ==========================
// Older reports (2019-2020: tensorflow#30803, pytorch/xla#1965) have no Operator line; sections
// exist for hbm and vmem. Field names are matched, not positions, so either layout reads.
#include <algorithm>
#include <cctype>
#include <optional>
#include <string>

#include "tessera/inputs/input_arrays.h"
#include "tessera/inputs/shapes_in_text.h"
#include "tessera/integer_text.h"
#include "tessera/utf8_text.h"

namespace tessera::inputs {
namespace {

std::optional<std::string_view> field(std::string_view line, std::string_view name) {
  const std::string_view t = trim(line);
  if (t.substr(0, name.size()) != name) return std::nullopt;
  return trim(t.substr(name.size()));
}

// "fusion.1265.remat3 = fusion(...)" or "%broadcast.8 = f32[...] broadcast(...)" -> the name.
std::string label_name(std::string_view label) {
  const std::size_t eq = label.find(" = ");
  std::string_view name = trim(label.substr(0, eq == std::string_view::npos ? 0 : eq));
  if (name.substr(0, 5) == "ROOT ") name = trim(name.substr(5));
  if (!name.empty() && name.front() == '%') name.remove_prefix(1);
  return std::string(name);
}

// "  3. Size: 1.00G" -> entry number 3 and "1.00G".
std::optional<std::pair<std::string, std::string>> entry_start(std::string_view line) {
  const std::string_view t = trim(line);
  const std::size_t dot = t.find(". Size:");
  if (dot == std::string_view::npos || dot == 0 || dot > 8) return std::nullopt;
  for (char c : t.substr(0, dot)) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  return std::make_pair(std::string(t.substr(0, dot)), std::string(trim(t.substr(dot + 7))));
}

// A whole size as XLA prints it (explain/xla_sizes.h): "61.25M", "4.0K", "512B". A report cut
// short mid-number ("Unpadded size: 61.") is not one.
bool is_size_text(std::string_view text) {
  std::size_t i = text.starts_with('-') ? 1 : 0;
  const auto digits = [&] {
    const std::size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    return i > start;
  };
  if (!digits()) return false;
  if (i < text.size() && text[i] == '.' && (++i, !digits())) return false;
  return i + 1 == text.size() &&
         std::string_view("BKMGTPE").find(text[i]) != std::string_view::npos;
}

// "31.00G (32.0x expansion)"
bool is_padding_text(std::string_view text) {
  const std::size_t open = text.find(" (");
  if (open == std::string_view::npos || !is_size_text(text.substr(0, open))) return false;
  std::string_view factor = text.substr(open + 2);
  constexpr std::string_view kEnd = "x expansion)";
  if (!factor.ends_with(kEnd)) return false;
  factor.remove_suffix(kEnd.size());
  return !factor.empty() && factor.find_first_not_of("0123456789.") == std::string_view::npos &&
         factor.front() != '.' && factor.back() != '.';
}

struct Entry {
  std::string number;
  std::string size;
  int64_t start_line = 0;
  std::vector<ShapeToken> shapes;
  int64_t shape_line = 0;
  std::string unpadded, padding, name;
  std::string operator_text;  // the Operator: line's value, the user's way back to the code
};

}  // namespace

namespace {

// The text between `open` and the next `close` after `at`, or "" (at moves past it).
std::string_view between(std::string_view line, std::size_t& at, std::string_view open,
                         std::string_view close) {
  const std::size_t begin = line.find(open, at);
  if (begin == std::string_view::npos) return {};
  const std::size_t from = begin + open.size();
  const std::size_t end = line.find(close, from);
  if (end == std::string_view::npos) return {};
  at = end + close.size();
  return trim(line.substr(from, end - from));
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

OutOfMemory read_summary(std::string_view line, int64_t number) {
  OutOfMemory oom;
  oom.line = number;
  // Cut where a character starts: a cut inside one printed a broken character
  // (fuzz/seeds/input_reader/utf16_cut_inside_character).
  oom.message = std::string(trim(prefix_of_characters(line, OutOfMemory::kMaxMessageLength)));
  std::size_t at = 0;
  if (const std::string_view space = between(line, at, "Ran out of memory on ", ",");
      !space.empty()) {
    // Today's: "... on HBM, the total memory required for HLO temporaries (26.25G) exceeds
    // available HBM (15.75G)."
    const std::string_view what = between(line, at, "required for ", " (");
    const std::string_view required = between(line, --at, "(", ")");
    const std::string_view available = between(line, at, "available ", ")");
    if (!what.empty() && !required.empty() && !available.empty()) {
      oom.memory_space = lower(space);
      oom.what = std::string(what);
      oom.required = std::string(required);
      oom.available = std::string(available.substr(available.find('(') + 1));
    }
    return oom;
  }
  at = 0;
  if (const std::size_t attempt = line.find("Attempting to "); attempt != std::string_view::npos) {
    // The runtime's, for buffers: "Attempting to reserve 12.00G at the bottom of memory. That was
    // not possible. There are 10.03G free, 0B reserved, and 10.03G reservable." (also
    // "Attempting to allocate 8.00G. That was not possible. There are 6.23G free, ...").
    const std::string_view after = line.substr(attempt + 14);  // "reserve 12.00G at ..."
    at = std::min(after.find(' '), after.size());              // past the verb
    std::string_view required = between(after, at, " ", " ");
    if (!required.empty() && required.back() == '.') required.remove_suffix(1);
    const std::string_view available = between(after, at, "There are ", " free");
    if (!required.empty() && !available.empty()) {
      oom.memory_space = "hbm";
      oom.what = "the allocation";
      oom.required = std::string(required);
      oom.available = std::string(available);
    }
    return oom;
  }
  if (const std::string_view space = between(line, at, "in memory space ", "."); !space.empty()) {
    // Older: "... in memory space hbm. Used 32.55G of 15.48G hbm."
    const std::string_view required = between(line, at, "Used ", " of ");
    const std::string_view available = between(line, at, "", " ");
    if (!required.empty() && !available.empty()) {
      oom.memory_space = lower(space);
      oom.what = "used";
      oom.required = std::string(required);
      oom.available = std::string(available);
    }
  }
  return oom;
}

}  // namespace

std::vector<OutOfMemory> find_out_of_memory(std::string_view text) {
  constexpr std::size_t kMaxSummaries = 100;
  constexpr std::string_view kCompiler = "Ran out of memory";
  constexpr std::string_view kRuntime = "That was not possible";  // after "Attempting to ..."
  std::vector<OutOfMemory> found;
  if (text.find(kCompiler) == std::string_view::npos &&
      text.find(kRuntime) == std::string_view::npos) {
    return found;
  }
  for_each_input_line(text, [&](std::string_view line, int64_t number) {
    if (found.size() < kMaxSummaries && (line.find(kCompiler) != std::string_view::npos ||
                                         line.find(kRuntime) != std::string_view::npos)) {
      found.push_back(read_summary(line, number));
    }
  });
  return found;
}

InputReading read_oom_report(std::string_view text) {
  InputReading reading;
  reading.format = InputFormat::kOomReport;
  // A number of the report's own, or "" (not compared) with a warning when it is not whole: a
  // report cut inside "Unpadded size: 61." was said to disagree with tessera.
  const auto reported = [&](std::string_view value, bool whole, std::string_view line,
                            int64_t number) {
    if (whole) return std::string(value);
    reading.warnings.push_back("line " + std::to_string(number) + ": '" + std::string(trim(line)) +
                               "' is cut short or not a size XLA prints; not compared");
    return std::string();
  };
  std::string space = "hbm";
  std::optional<Entry> entry;
  auto finish = [&] {
    if (!entry) return;
    if (entry->shapes.empty()) {
      reading.warnings.push_back("line " + std::to_string(entry->start_line) + ": allocation " +
                                 entry->number +
                                 " has no readable Shape: line (report cut short?); skipped");
    }
    for (const ShapeToken& s : entry->shapes) {
      if (reading.arrays.size() >= kMaxInputArrays) {
        reading.truncated = true;
        break;
      }
      InputArray a;
      a.shape = s.text;
      a.name = entry->name.empty() ? "" : entry->name + s.index;
      a.place = space + " allocation " + entry->number;
      a.line = entry->shape_line;
      a.operator_text = entry->operator_text;
      // The report's numbers describe the whole allocation, so they stay with a single array.
      if (entry->shapes.size() == 1) {
        a.reported_size = entry->size;
        a.reported_unpadded = entry->unpadded;
        a.reported_padding = entry->padding;
      }
      reading.arrays.push_back(std::move(a));
    }
    entry.reset();
  };
  for_each_input_line(text, [&](std::string_view line, int64_t number) {
    if (const std::size_t at = line.find("allocations in "); at != std::string_view::npos) {
      finish();
      const std::string_view rest = line.substr(at + 15);
      space = std::string(rest.substr(0, std::min(rest.find(':'), rest.size())));
      return;
    }
    if (auto start = entry_start(line)) {
      finish();
      entry = Entry{start->first, "", number, {}, 0, {}, {}, {}, {}};
      entry->size = reported(start->second, is_size_text(start->second), line, number);
      return;
    }
    if (!entry) return;
    if (auto shape = field(line, "Shape:")) {
      std::size_t pos = 0;
      if (auto shapes = read_shape_at(*shape, pos)) {
        entry->shapes = std::move(*shapes);
        entry->shape_line = number;
      } else {
        reading.warnings.push_back("line " + std::to_string(number) + ": cannot read the shape '" +
                                   std::string(prefix_of_characters(*shape, 80)) + "'");
      }
    } else if (auto unpadded = field(line, "Unpadded size:")) {
      entry->unpadded = reported(*unpadded, is_size_text(*unpadded), line, number);
    } else if (auto padding = field(line, "Extra memory due to padding:")) {
      entry->padding = reported(*padding, is_padding_text(*padding), line, number);
    } else if (auto op = field(line, "Operator:")) {
      entry->operator_text = std::string(prefix_of_characters(*op, InputArray::kMaxOperatorLength));
    } else if (auto label = field(line, "XLA label:")) {
      entry->name = label_name(*label);
    } else if (trim(line).substr(0, 5) == "=====") {
      finish();
    }
  });
  finish();
  if (reading.arrays.empty()) reading.warnings.push_back("no allocation with a Shape: line found");
  return reading;
}

}  // namespace tessera::inputs
