// What the TPU compiler's child process answered to `--check-with-compiler` (the CLI runs
// python/tessera/oracle.py, which prints one JSON line saying it is ready, then one answer per
// request). The child is another program: its text is escaped and bounded, its numbers checked,
// and anything malformed is refused in tessera's words, never a JSON library's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tessera::explain {

// The child's output is read up to this many bytes; more is refused (a layout is ~100 bytes).
inline constexpr std::size_t kMaxCompilerReplyBytes = std::size_t{1} << 20;

struct CompilerReply {
  // Set when the child could not use jax[tpu] (its own words, printable) or printed no line.
  std::optional<std::string> unavailable;
  // Set when the compiler refused the array (its words, printable).
  std::optional<std::string> refused;
  std::string layout;      // "f32[1024,3]{0,1:T(4,128)}", printable
  int64_t size_bytes = 0;  // 0 <= size_bytes < 2^62
  std::string jax;         // versions, printable
  std::string libtpu;
};

// Reads the child's whole standard output: the "ready" line, then the answer line. Throws
// Error(kInvalid) saying what is wrong ("the compiler's answer ...") when the text is not an
// answer: not JSON, a depth or size past the bounds, a field missing or of another type, a size
// that is negative or not a whole number.
CompilerReply read_compiler_reply(std::string_view output);

}  // namespace tessera::explain
