// Errors are values with a kind, a message and, for text input, a position.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tessera {

enum class ErrorKind {
  kSyntax,       // malformed notation: the column says where
  kInvalid,      // well-formed but meaningless (zero tile, duplicate dimension, ...)
  kUnsupported,  // valid XLA we deliberately do not model (docs/reference/notation.md)
  kOutOfRange,   // an index, offset or address outside its domain
  kOverflow,     // a size that does not fit in 64 bits
  kDoesNotFit,   // a tensor that does not fit in local memory
  kBufferSize,   // a buffer or file of the wrong size
  kIo,           // a file could not be read or written
  kArgument,     // a value that does not fit where it goes (a fill value the type cannot hold,
                 // an array of another dtype, a read-only or overlapping output buffer)
};

// The one exception type of the library. `what()` is the full, user-facing message; when the
// error is about a position in some input text, the message ends with that text and a caret.
class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message);
  // A notation error at 0-based `column` of `input`.
  Error(ErrorKind kind, const std::string& message, std::string_view input, std::size_t column);

  ErrorKind kind() const { return kind_; }
  // The message without the input excerpt and caret.
  const std::string& message() const { return message_; }
  // 0-based column in the input, when the error is about a position in a text.
  std::optional<std::size_t> column() const { return column_; }

 private:
  ErrorKind kind_;
  std::string message_;
  std::optional<std::size_t> column_;
};

}  // namespace tessera
