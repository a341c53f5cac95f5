// Fuzzes what the compiler's child process prints for `--check-with-compiler`
// (tessera/explain/compiler_reply.h): any bytes are refused with tessera::Error or read into an
// answer whose text is printable, whose size is a whole number of bytes in range, and which says
// exactly one of unavailable, refused or answered.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tessera/error.h"
#include "tessera/explain/compiler_reply.h"
#include "tessera/utf8_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const tessera::explain::CompilerReply reply = tessera::explain::read_compiler_reply(text);
    const auto printable = [](std::string_view s) { return tessera::printable_utf8(s) == s; };
    if (reply.unavailable && !printable(*reply.unavailable)) __builtin_trap();
    if (reply.refused && !printable(*reply.refused)) __builtin_trap();
    if (!printable(reply.layout) || !printable(reply.jax) || !printable(reply.libtpu))
      __builtin_trap();
    if (reply.size_bytes < 0 || reply.size_bytes >= (int64_t{1} << 62)) __builtin_trap();
  } catch (const tessera::Error& e) {
    if (tessera::printable_utf8(e.message()) != e.message()) __builtin_trap();
  }
  return 0;
}
