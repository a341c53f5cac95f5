// The known name a mistyped word most likely meant, for "did you mean ...?" answers (the CLI's
// unknown commands and options; tests/core/nearest_name_test.cpp).
//
//   nearest_name("inof", {"index", "info", "unindex"}) == "info"      (two letters swapped: 1)
//   nearest_name("--taget", {"--target", "--json"}) == "--target"     (one letter missing: 1)
//   nearest_name("xyzzy", {"info"}) == std::nullopt                   (nothing close)
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera {

// Edits that turn `a` into `b`: insertions, deletions, substitutions and swaps of two adjacent
// characters (the optimal string alignment distance), compared without regard to ASCII case.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The name of `names` fewest edits away from `word`, if it is close enough to be a typo: at most
// 1 edit for words of up to 4 characters, 2 up to 8, 3 beyond. Ties go to the first name. A name
// that starts with `word` (an abbreviation, 3 characters or more) counts as close.
std::optional<std::string> nearest_name(std::string_view word,
                                        const std::vector<std::string>& names);

}  // namespace tessera
