// JSON text read the way a person reading it would: nlohmann's parser keeps the last of two equal
// keys and stops at a NUL byte as if the text ended there, so `{"w": 10, "w": 20}` and
// `{...}\0garbage` were read without a word. Both are refused here.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

namespace tessera {

// Parses `text`; throws Error(kSyntax) starting with "`what` is not valid JSON" for malformed
// text (the byte it stopped at), for a NUL byte anywhere (its position), and for a key given
// twice in one object (the key and where: "tensors[0]: the key 'address' is given twice").
nlohmann::json parse_strict_json(std::string_view text, std::string_view what);

}  // namespace tessera
