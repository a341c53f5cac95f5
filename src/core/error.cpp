#include "tessera/error.h"

#include <fmt/format.h>

namespace tessera {

Error::Error(ErrorKind kind, const std::string& message)
    : std::runtime_error(message), kind_(kind), message_(message) {}

namespace {
// "message at column 7:\n  f32[3,5]{1,0:T(0,2)}\n        ^" (columns are 1-based for people).
std::string with_caret(const std::string& message, std::string_view input, std::size_t column) {
  return fmt::format("{} (at column {})\n  {}\n  {}^", message, column + 1, input,
                     std::string(column, ' '));
}
}  // namespace

Error::Error(ErrorKind kind, const std::string& message, std::string_view input, std::size_t column)
    : std::runtime_error(with_caret(message, input, column)),
      kind_(kind),
      message_(message),
      column_(column) {}

}  // namespace tessera
