// Reading the text users hold — XLA out-of-memory reports, HLO modules, any log — into a list of
// named arrays to explain.
//
// Example (a TPU OOM report behind log prefixes, pytorch/xla#1965):
//   2020-05-04 09:05:40.720686: E 1578 .../xla_util.cc:76]   14. Size: 96.00M
//   2020-05-04 09:05:40.720694: E 1578 .../xla_util.cc:76]      Shape:
//   bf16[16,12,512,512]{3,2,1,0:T(8,128)(2,1)} 2020-05-04 09:05:40.720702: E 1578
//   .../xla_util.cc:76]      Unpadded size: 96.00M 2020-05-04 09:05:40.720713: E 1578
//   .../xla_util.cc:76]      XLA label: %reshape.152459 = bf16[...
// -> one InputArray {shape "bf16[16,12,512,512]{3,2,1,0:T(8,128)(2,1)}", name "reshape.152459",
//    place "hbm allocation 14", line 2, reported_size "96.00M", reported_unpadded "96.00M"}.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::inputs {

enum class InputFormat { kOomReport, kHloModule, kShapeText };

// "oom_report", "hlo_module", "shape_text"
std::string_view input_format_name(InputFormat format);

struct InputArray {
  std::string shape;  // one array's shape as written (tuples are split into their elements)
  std::string name;   // instruction or parameter name when the text gives one ("fusion.12{1}")
  std::string place;  // where it was found: "hbm allocation 3", "computation main.4", "line 7"
  int64_t line = 0;   // 1-based line of the shape in the input
  // The report's own numbers, as printed (empty when the input has none).
  std::string reported_size;
  std::string reported_unpadded;
  std::string reported_padding;  // "Extra memory due to padding: 31.00G (32.0x expansion)" value
  // Empty when the array is a buffer of its own; else why it is another array's buffer (an HLO
  // module's tuple element, fusion internal or entry layout entry), so that totals count each
  // buffer once: "a tuple of other instructions' buffers" (src/inputs/hlo_buffers.h).
  std::string same_buffer;
  // An OOM report's "Operator: op_name=... source_file=... source_line=..." value, as written (at
  // most kMaxOperatorLength bytes): the user's way back to the line that made the allocation.
  // (A default member initializer: readers that build arrays by aggregate need not name it.)
  std::string operator_text = {};
  static constexpr std::size_t kMaxOperatorLength = 400;
};

// The compiler's own summary of an out-of-memory error, as printed (sizes in XLA's "26.25G"):
//   today (libtpu 0.0.42.1, every generation; tests/fixtures/tpu_oracle/oom_messages.json):
//     "RESOURCE_EXHAUSTED: Ran out of memory on HBM, the total memory required for HLO
//      temporaries (26.25G) exceeds available HBM (15.75G)."  (no allocations are listed)
//   older (2020-2024 reports, before the list of largest allocations):
//     "Ran out of memory in memory space hbm. Used 32.55G of 15.48G hbm. Exceeded hbm capacity
//      by 17.07G."
struct OutOfMemory {
  std::string memory_space;  // "hbm", "vmem" (lower case); "" when the wording is not known
  std::string what;          // what `required` counts: "HLO temporaries", "used"
  std::string required;
  std::string available;
  int64_t line = 0;
  std::string message;  // the line it was read from (at most kMaxMessageLength bytes)
  static constexpr std::size_t kMaxMessageLength = 400;
};

// Every out-of-memory summary in the text (at most 100).
std::vector<OutOfMemory> find_out_of_memory(std::string_view text);

struct InputReading {
  InputFormat format = InputFormat::kShapeText;
  std::vector<InputArray> arrays;
  std::vector<OutOfMemory> out_of_memory;
  bool truncated = false;             // more than kMaxInputArrays arrays: the rest were not read
  std::vector<std::string> warnings;  // what could not be read, with line numbers
};

// Bounded work: at most this many arrays are read (a warning says the rest were skipped).
inline constexpr std::size_t kMaxInputArrays = 100000;

// Converts the text to UTF-8 (utf8_input_text) and chooses the reader: an OOM report when the
// text has "allocations in <space>:" or an allocation's "Shape:" line (any shape text when that
// reads no allocation), an HLO module when it has "HloModule", any shape text otherwise; and
// finds the out-of-memory summaries. Never throws for malformed text: it reads as far as it can
// and warns.
InputReading read_input(std::string_view text);

InputReading read_oom_report(std::string_view text);
InputReading read_hlo_module(std::string_view text);
// Every shape written with a layout; when none has one, every shape.
InputReading read_shape_text(std::string_view text);

// True when `argument` looks like a file name rather than a shape: no '[', and a '/' or '\\' or
// an extension ("reprot.txt", "dump/m.hlo"). `tessera explain ARG` with such an ARG that names no
// file says the file is missing instead of reading it as a shape ("unknown element type
// 'reprot'").
bool looks_like_path(std::string_view argument);

// Input bytes as UTF-8 when they are not already: a UTF-8 byte order mark dropped; UTF-16 (a
// BOM says which endianness; without one, text whose every other byte is 0 near the start, as
// Windows PowerShell's `>` writes) converted, a lone surrogate becoming U+FFFD. nullopt when the
// bytes are to be read as they are.
std::optional<std::string> utf8_input_text(std::string_view bytes);
// The one decoder every reader of text input calls first (read_input, find_layout_mismatches,
// find_copies): `bytes` itself when it is to be read as it is, else utf8_input_text(bytes), kept
// in `storage`. A UTF-16 log reads as its UTF-8 twin everywhere.
std::string_view utf8_view(std::string_view bytes, std::string& storage);

// The text of a file, or of standard input for "-". Throws Error naming the path when it cannot
// be read or is larger than kMaxInputBytes (bounded memory).
inline constexpr std::size_t kMaxInputBytes = std::size_t{1} << 30;
std::string read_input_text(const std::string& path);

// The lines of `text` as the readers see them, one at a time (no copy of the whole text): glog
// and absl prefixes removed ("2020-05-04 09:05:40.719745: E 1578 x.cc:76] ",
// "E0504 09:05:40.719745 1578 x.cc:76] "); an escaped message split at its "\n" (Python's repr
// of an exception on any line of a traceback, a JSON log field, or a text that is one escaped
// message); tabs become spaces, bytes that are not UTF-8 `\xNN` and control characters `\u00NN`
// (printable_utf8). `number` is the 1-based line of the text the line came from (the lines of
// one escaped message share it).
using InputLineVisitor = std::function<void(std::string_view line, int64_t number)>;
void for_each_input_line(std::string_view text, const InputLineVisitor& visit);

// The same lines collected, for the readers that look back and for tests.
std::vector<std::string> input_lines(std::string_view text);

}  // namespace tessera::inputs
