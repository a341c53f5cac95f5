#include "tessera/npu/local_layout.h"

#include <numeric>

#include "tessera/checked_arithmetic.h"

namespace tessera::npu {

int64_t channels_per_npu(int64_t start_npu, int64_t channels, int64_t npus) {
  return ceil_divide(checked_add(start_npu, channels, "start NPU + channels"), npus);
}

int64_t aligned_c_stride(int64_t hw, int64_t element_bytes, int64_t alignment_bytes) {
  // The lcm keeps the stride whole elements even for alignments that are not a multiple of the
  // element size (custom devices); for real chips it is the alignment itself.
  const int64_t unit = checked_multiply(alignment_bytes / std::gcd(alignment_bytes, element_bytes),
                                        element_bytes, "the alignment unit");
  const int64_t bytes = checked_multiply(hw, element_bytes, "the channel size in bytes");
  return round_up(bytes, unit, "the aligned C stride") / element_bytes;
}

Strides continuous_strides(const TensorShape& shape) {
  const int64_t hw = checked_multiply(shape[2], shape[3], "H*W");
  return {checked_multiply(shape[1], hw, "C*H*W"), hw, shape[3], 1};
}

}  // namespace tessera::npu
