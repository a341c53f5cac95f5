// Sizes the way XLA's TPU out-of-memory report prints them, so a tessera line can be matched to
// the report's "Size:", "Unpadded size:" and "Extra memory due to padding:" lines.
//
// Example: for pred[64,512,2048]{2,1,0:T(8,128)E(32)} the report says
//   Size: 256.00M / Unpadded size: 64.00M / Extra memory due to padding: 192.00M (4.0x expansion)
// and unpadded_bytes(shape) == 67108864, xla_size_text(67108864) == "64.00M",
// xla_expansion_text(268435456, 67108864) == "4.0x expansion".
#pragma once

#include <cstdint>
#include <string>

#include "tessera/xla/shape.h"

namespace tessera::explain {

// XLA's "Unpadded size": elements x the type's byte size, ignoring the layout (tiles, E(n),
// L(n)). The byte size is XLA's ByteWidth, ceil(bits / 8) (xla/primitive_util.h), so pred,
// s4, s2, s1 and f4e2m1fn count one byte each: pred[64,512,2048] -> 64 MiB.
int64_t unpadded_bytes(const xla::Shape& shape);

// As XLA's OOM report prints a size (tsl's HumanReadableNumBytes without the "iB"): below 1024
// "512B"; kilobytes with one decimal "1.5K", "4.0K"; larger units with two decimals "256.00M",
// "31.00G", "1.00T". Units are powers of 1024; the value is truncated to whole units of the
// next smaller size before dividing (12345678 -> "11.77M"). Negative sizes get a "-".
std::string xla_size_text(int64_t bytes);

// "32.0x expansion": size / unpadded with one decimal, as the report's padding line says it
// ("0.0x expansion" when unpadded is 0).
std::string xla_expansion_text(int64_t size_bytes, int64_t unpadded);

}  // namespace tessera::explain
