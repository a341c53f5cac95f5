#include "tessera/error.h"

#include <fmt/format.h>

#include "tessera/utf8_text.h"

namespace tessera {

// Messages quote user input; whatever it held, what is printed is valid UTF-8 without control
// characters (a NUL would cut the message short in C strings and Python).
Error::Error(ErrorKind kind, const std::string& message)
    : std::runtime_error(printable_lines(message)),
      kind_(kind),
      message_(printable_lines(message)) {}

namespace {
// "message (at column 7)\n  f32[3,5]{1,0:T(0,2)}\n        ^": columns are 1-based for people
// and count characters, not bytes, so the caret stands under the character.
std::string with_caret(const std::string& message, std::string_view input, std::size_t column) {
  const std::size_t characters = display_column(input, column);
  return fmt::format("{} (at column {})\n  {}\n  {}^", printable_lines(message), characters + 1,
                     printable_utf8(input), std::string(characters, ' '));
}
}  // namespace

Error::Error(ErrorKind kind, const std::string& message, std::string_view input, std::size_t column)
    : std::runtime_error(with_caret(message, input, column)),
      kind_(kind),
      message_(printable_lines(message)),
      column_(column) {}

}  // namespace tessera
