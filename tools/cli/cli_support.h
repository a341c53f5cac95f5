// Small helpers shared by the command files (integer parsing lives in tessera/integer_text.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::cli {

// {2,3} -> "2,3"
std::string join_integers(const std::vector<int64_t>& values);

}  // namespace tessera::cli
