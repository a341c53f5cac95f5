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
  // Checked throughout: a tensor that does not fit is still reported, and huge strides or many
  // NPUs must give an error rather than wrap around (fuzz_npu_arguments found the sum below).
  int64_t row_tail = 0;
  for (const int dim : {0, 2, 3})
    row_tail = checked_add(row_tail, checked_multiply(stored[dim] - 1, s[dim], "a stride"),
                           "a channel row's extent");
  const auto bytes_at = [&](int64_t row, int64_t tail) {
    const int64_t elements =
        checked_add(checked_multiply(row, s[1], "a channel row's offset"), tail, "an offset");
    return checked_add(tensor.start().offset,
                       checked_multiply(elements, stored_bytes, "a byte offset"), "a byte offset");
  };

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
    mine.first_byte = bytes_at(first_row, 0);
    mine.last_byte = bytes_at(last_row, row_tail) + stored_bytes - 1;
    mine.span_bytes = mine.last_byte - mine.first_byte + 1;
    mine.data_bytes = checked_multiply(mine.channels, channel_data, "an NPU's data bytes");
    mine.dummy_bytes =
        checked_multiply(mine.channels, channel_slots - channel_data, "an NPU's dummy bytes");
    result.npus_touched.push_back(npu);
    result.span_bytes = checked_add(result.span_bytes, mine.span_bytes, "the bytes spanned");
    result.busiest_npu_bytes = std::max(result.busiest_npu_bytes, mine.span_bytes);
    result.data_bytes = checked_add(result.data_bytes, mine.data_bytes, "the data bytes");
    result.dummy_bytes = checked_add(result.dummy_bytes, mine.dummy_bytes, "the dummy bytes");
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
