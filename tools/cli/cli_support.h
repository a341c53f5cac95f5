// Small helpers shared by the command files (integer parsing lives in tessera/integer_text.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::cli {

// {2,3} -> "2,3"
std::string join_integers(const std::vector<int64_t>& values);

// Thrown by a command that finished its output but must exit with a status other than 0 (a check
// that found a problem: 1); main() returns `code` without printing anything more.
struct ExitStatus {
  int code = 1;
};

}  // namespace tessera::cli
