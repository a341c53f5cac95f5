// JSON text read the way a person reading it would: nlohmann's parser keeps the last of two equal
// keys and stops at a NUL byte as if the text ended there, so `{"w": 10, "w": 20}` and
// `{...}\0garbage` were read without a word. Both are refused here.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string_view>

namespace tessera {

// Objects and arrays nest at most this deep in any JSON tessera reads. Deeper text is refused as
// it is read: nlohmann's dump, comparison and copy recurse once per level (a wisdom value nested
// 100,000 deep overflowed the stack), and an indented dump of depth d costs d spaces a line
// (tests/cli/test_hostile_round3_cli.py).
inline constexpr std::size_t kMaxJsonDepth = 64;

// Parses `text`; throws Error(kSyntax) starting with "`what` is not valid JSON" for malformed
// text (the byte it stopped at), for a NUL byte anywhere (its position), and for a key given
// twice in one object (the key and where: "tensors[0]: the key 'address' is given twice"), and
// for values nested deeper than kMaxJsonDepth.
nlohmann::json parse_strict_json(std::string_view text, std::string_view what);

}  // namespace tessera
