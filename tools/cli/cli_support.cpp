#include "cli_support.h"

#include <fmt/format.h>

namespace tessera::cli {

std::string join_integers(const std::vector<int64_t>& values) {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i)
    out += fmt::format("{}{}", i ? "," : "", values[i]);
  return out;
}

}  // namespace tessera::cli
