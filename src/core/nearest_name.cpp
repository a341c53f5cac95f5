#include "tessera/nearest_name.h"

#include <algorithm>
#include <cctype>

namespace tessera {
namespace {

char folded(char c) {
  return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

// Words longer than this are never typos of a command or option name; bounding them keeps the
// table small whatever a user typed.
constexpr std::size_t kLongestCompared = 64;

std::size_t allowed_edits(std::size_t length) {
  if (length <= 4) return 1;
  if (length <= 8) return 2;
  return 3;
}

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  a = a.substr(0, kLongestCompared);
  b = b.substr(0, kLongestCompared);
  // d[i][j]: edits from a[0, i) to b[0, j); three rows are enough for the swap rule.
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = folded(a[i - 1]) == folded(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && folded(a[i - 1]) == folded(b[j - 2]) &&
          folded(a[i - 2]) == folded(b[j - 1])) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

std::optional<std::string> nearest_name(std::string_view word,
                                        const std::vector<std::string>& names) {
  std::optional<std::string> best;
  std::size_t best_distance = allowed_edits(word.size()) + 1;
  for (const std::string& name : names) {
    std::size_t distance = edit_distance(word, name);
    const bool abbreviation = word.size() >= 3 && name.size() > word.size() &&
                              edit_distance(word, name.substr(0, word.size())) == 0;
    if (abbreviation) distance = std::min<std::size_t>(distance, 1);
    if (distance < best_distance) {
      best = name;
      best_distance = distance;
    }
  }
  return best;
}

}  // namespace tessera
