#include "cli_support.h"

#include <fmt/format.h>

namespace tessera::cli {

std::string join_integers(const std::vector<int64_t>& values) {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i)
    out += fmt::format("{}{}", i ? "," : "", values[i]);
  return out;
}

void add_max_overlaps_option(CLI::App* command, int64_t& max_listed) {
  command->add_option("--max-overlaps", max_listed,
                      "Overlapping pairs (and empty-block reuses, bank conflicts) listed; the "
                      "counts are always whole (100)");
}

}  // namespace tessera::cli
