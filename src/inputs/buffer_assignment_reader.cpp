// The compiler's *-buffer-assignment.txt (XLA_FLAGS=--xla_dump_to=DIR), read into the figures of
// memory_analysis():
//   allocation 1: size 2097152, parameter 3, shape |f32[1024,512]| at ShapeIndex {},
//   maybe-live-out:
//    value: <116 params__w2__.1 @0> (size=2097152,offset=0): f32[1024,512]{1,0:T(8,128)}
//   allocation 19: size 28, color 2, preallocated-temp:
// An allocation with "parameter" is an argument, one with "maybe-live-out" or "output shape is"
// an output (an argument that is also an output is aliased); the temporaries are the values of
// the preallocated-temp allocation that are arrays, as far as the compiler packs them (its tuple
// index tables are left out: memory_analysis does not count them). Constants and thread-local
// scalars are neither. Observed on every fixture of tests/fixtures/tpu_memory.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>

#include "tessera/error.h"
#include "tessera/inputs/input_arrays.h"
#include "tessera/inputs/program_memory.h"
#include "tessera/utf8_text.h"
#include "text_lines.h"

namespace tessera::inputs {
namespace {

// The integer after `key` in `text`, or -1.
int64_t number_after(std::string_view text, std::string_view key) {
  const std::size_t at = text.find(key);
  if (at == std::string_view::npos) return -1;
  int64_t value = -1;
  const char* begin = text.data() + at + key.size();
  std::from_chars(begin, text.data() + text.size(), value);
  return value;
}

struct Allocation {
  int64_t size = 0;
  int64_t color = 0;
  bool parameter = false;
  bool output = false;
  bool preallocated = false;
  bool other = false;      // thread-local or constant
  int64_t packed_end = 0;  // preallocated: the end of its last array value
  std::vector<ProgramBuffer> values;
};

}  // namespace

bool is_buffer_assignment(std::string_view text) {
  const std::size_t start = text.find_first_not_of(" \t\r\n");
  return start != std::string_view::npos && text.substr(start).starts_with("BufferAssignment:");
}

ProgramMemory program_memory_from_buffer_assignment(std::string_view text) {
  if (!is_buffer_assignment(text)) {
    throw Error(ErrorKind::kInvalid,
                "not a buffer assignment: its first line is not 'BufferAssignment:'");
  }
  std::vector<Allocation> allocations;
  for_each_numbered_line(text, [&](std::string_view line, int64_t line_number) {
    if (line.starts_with("allocation ")) {
      Allocation a;
      a.size = number_after(line, ": size ");
      if (a.size < 0) {
        throw Error(
            ErrorKind::kSyntax,
            fmt::format("buffer assignment line {}: an allocation without its size", line_number));
      }
      a.color = std::max<int64_t>(0, number_after(line, ", color "));
      a.parameter = line.find(", parameter ") != std::string_view::npos;
      a.output = line.find("maybe-live-out") != std::string_view::npos ||
                 line.find("output shape is") != std::string_view::npos;
      a.preallocated = line.find("preallocated-temp") != std::string_view::npos;
      a.other = line.find("thread-local") != std::string_view::npos ||
                line.find(", constant") != std::string_view::npos;
      allocations.push_back(std::move(a));
      return;
    }
    if (!line.starts_with(" value: <") || allocations.empty()) return;
    // " value: <116 params__w2__.1 @0> (size=2097152,offset=0): f32[1024,512]{1,0:T(8,128)}"
    const std::size_t name_begin = line.find(' ', 9);
    const std::size_t name_end = line.find(" @", name_begin);
    const std::size_t shape_at = line.find("): ");
    if (name_begin == std::string_view::npos || name_end == std::string_view::npos ||
        shape_at == std::string_view::npos) {
      return;
    }
    Allocation& a = allocations.back();
    ProgramBuffer b;
    // As printable UTF-8: the names and layouts go into reports and JSON as they are.
    b.name = printable_utf8(line.substr(name_begin + 1, name_end - name_begin - 1));
    b.layout = printable_utf8(line.substr(shape_at + 3));
    b.size_bytes = std::max<int64_t>(0, number_after(line, "(size="));
    b.memory_space = a.color;
    b.kind = a.parameter ? BufferKind::kParameter
             : a.output  ? BufferKind::kOutput
                         : BufferKind::kTemporary;
    if (b.layout.starts_with("(")) return;  // a tuple's index table
    if (a.preallocated) {
      a.packed_end = std::max(a.packed_end, number_after(line, ",offset=") + b.size_bytes);
    }
    a.values.push_back(std::move(b));
  });
  if (allocations.empty()) {
    throw Error(ErrorKind::kInvalid, "the buffer assignment lists no allocation");
  }
  std::map<int64_t, MemoryFigures> spaces;
  ProgramMemory m;
  m.basis = MemoryBasis::kBufferAssignment;
  for (Allocation& a : allocations) {
    MemoryFigures& f = spaces[a.color];
    if (a.parameter) f.argument_size_in_bytes += a.size;
    if (a.output) f.output_size_in_bytes += a.size;
    if (a.parameter && a.output) f.alias_size_in_bytes += a.size;
    if (a.preallocated) {
      f.temp_size_in_bytes += a.packed_end;
    } else if (!a.parameter && !a.output && !a.other) {
      f.temp_size_in_bytes += a.size;
    }
    if (a.other) continue;
    for (ProgramBuffer& b : a.values) {
      if (b.memory_space == 0) m.live_at_peak.push_back(b);
      m.buffers.push_back(std::move(b));
    }
  }
  spaces.try_emplace(0);
  for (const auto& [space, figures] : spaces) m.memory_spaces.push_back({space, figures});
  m.hbm = spaces[0];
  std::stable_sort(m.live_at_peak.begin(), m.live_at_peak.end(),
                   [](const auto& x, const auto& y) { return x.size_bytes > y.size_bytes; });
  if (m.live_at_peak.size() > 1000) m.live_at_peak.resize(1000);
  m.notes.push_back(
      "the buffer assignment has no schedule: the buffers listed are the HBM values it holds, "
      "alive at the peak or not (pass the module beside it for the live ranges)");
  return m;
}

}  // namespace tessera::inputs
