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
};

struct InputReading {
  InputFormat format = InputFormat::kShapeText;
  std::vector<InputArray> arrays;
  std::vector<std::string> warnings;  // what could not be read, with line numbers
};

// Bounded work: at most this many arrays are read (a warning says the rest were skipped).
inline constexpr std::size_t kMaxInputArrays = 100000;

// Chooses the reader: an OOM report when the text has "allocations in <space>:" or an
// allocation's "Shape:" line, an HLO module when it has "HloModule", any shape text otherwise.
// Never throws for malformed text: it reads as far as it can and warns.
InputReading read_input(std::string_view text);

InputReading read_oom_report(std::string_view text);
InputReading read_hlo_module(std::string_view text);
// Every shape written with a layout; when none has one, every shape.
InputReading read_shape_text(std::string_view text);

// The text of a file, or of standard input for "-". Throws Error naming the path when it cannot
// be read or is larger than kMaxInputBytes (bounded memory).
inline constexpr std::size_t kMaxInputBytes = std::size_t{1} << 30;
std::string read_input_text(const std::string& path);

// Lines with glog/absl prefixes removed ("2020-05-04 09:05:40.719745: E 1578 x.cc:76] ",
// "E0504 09:05:40.719745 1578 x.cc:76] "), and Python's escaped "\n" turned into line breaks when
// the text is a single escaped message; tabs become spaces, bytes that are not UTF-8 `\xNN` and
// control characters `\u00NN` (printable_utf8). Exposed for the readers and their tests.
std::vector<std::string> input_lines(std::string_view text);

}  // namespace tessera::inputs
