#include "tessera/npu/footprint.h"

#include <algorithm>

#include "tessera/checked_arithmetic.h"

namespace tessera::npu {

Footprint footprint(const LocalTensor& tensor) {
  const Device& device = tensor.device();
  const TensorShape& shape = tensor.shape();
  const TensorShape& stored = tensor.stored_shape();
  const Strides& s = tensor.strides();
  const int64_t start_npu = tensor.start().npu;
  const int64_t stored_bytes = tensor.stored_element_bytes();
  // A channel's bytes: every (n, h, w); packing makes N' * packing slots of which N are data.
  const int64_t hw = checked_multiply(shape[2], shape[3], "H*W");
  const int64_t channel_data = checked_multiply(
      checked_multiply(shape[0], hw, "a channel's elements"), tensor.element_bytes(), "bytes");
  const int64_t channel_slots =
      checked_multiply(checked_multiply(stored[0], packing_factor(tensor.storage_mode()), "N"),
                       checked_multiply(hw, tensor.element_bytes(), "bytes"), "a channel's bytes");
  // Offset (in stored elements) of the last element of a channel row: n, h, w at their largest.
  const int64_t row_tail = (stored[0] - 1) * s[0] + (stored[2] - 1) * s[2] + (stored[3] - 1) * s[3];

  Footprint result;
  result.npus.resize(device.npus);
  for (int64_t npu = 0; npu < device.npus; ++npu) {
    NpuFootprint& mine = result.npus[npu];
    mine.npu = npu;
    const int64_t first_channel = ((npu - start_npu) % device.npus + device.npus) % device.npus;
    if (first_channel >= shape[1]) continue;
    mine.channels = (shape[1] - 1 - first_channel) / device.npus + 1;
    const int64_t first_row = tensor.row_of_channel(first_channel);
    const int64_t last_row =
        tensor.row_of_channel(first_channel + (mine.channels - 1) * device.npus);
    mine.first_byte = tensor.start().offset + first_row * s[1] * stored_bytes;
    mine.last_byte =
        tensor.start().offset + (last_row * s[1] + row_tail) * stored_bytes + stored_bytes - 1;
    mine.span_bytes = mine.last_byte - mine.first_byte + 1;
    mine.data_bytes = mine.channels * channel_data;
    mine.dummy_bytes = mine.channels * (channel_slots - channel_data);
    result.npus_touched.push_back(npu);
    result.span_bytes += mine.span_bytes;
    result.busiest_npu_bytes = std::max(result.busiest_npu_bytes, mine.span_bytes);
    result.data_bytes += mine.data_bytes;
    result.dummy_bytes += mine.dummy_bytes;
  }
  result.reserved_bytes_per_npu = tensor.bytes_reserved_per_npu();
  const int64_t reserved_everywhere =
      checked_multiply(result.reserved_bytes_per_npu, device.npus, "the reserved bytes");
  result.gap_bytes = result.span_bytes - result.data_bytes - result.dummy_bytes;
  result.unused_bytes = reserved_everywhere - result.span_bytes;
  result.wasted_bytes = reserved_everywhere - result.data_bytes;
  result.fits = tensor.fits();
  result.overrun_bytes = tensor.overrun_bytes();
  return result;
}

}  // namespace tessera::npu
