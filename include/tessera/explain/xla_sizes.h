// Sizes as XLA's TPU out-of-memory report computes and prints them.
//
// XLA's report lists, per allocation, "Size" (the padded buffer), "Unpadded size" (elements x the
// type's bytes, pred counted as 1 byte) and "Extra memory due to padding". Sizes print as
// "0B".."1023B", then one decimal for K ("4.0K") and two for M and above ("256.00M", "31.00G"),
// the value truncated to whole units of the next smaller unit first (public reports: jax#7502,
// pytorch/xla#1965).
#pragma once

#include <cstdint>
#include <string>

#include "tessera/xla/shape.h"

namespace tessera::explain {

// Example: unpadded_bytes(s32[8388608,8,4]) == 1 GiB; unpadded_bytes(pred[1024]) == 1024.
int64_t unpadded_bytes(const xla::Shape& shape);

// Example: xla_size_text(256 << 20) == "256.00M", xla_size_text(4096) == "4.0K",
// xla_size_text(512) == "512B".
std::string xla_size_text(int64_t bytes);

}  // namespace tessera::explain
