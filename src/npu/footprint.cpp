#include "tessera/npu/footprint.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "tessera/checked_arithmetic.h"

namespace tessera::npu {
namespace {

// Where an NPU's channels lie: channels first, first + X, ... sit in consecutive channel rows of
// that NPU, row_of_channel apart. Shared by footprint() and busiest_npu_span_bytes().
class ChannelRows {
 public:
  explicit ChannelRows(const LocalTensor& tensor) : tensor_(tensor) {
    // Offset (in stored elements) of the last element of a channel row: n, h, w at their
    // largest. Checked throughout: a tensor that does not fit is still reported, and huge strides
    // or many NPUs must give an error rather than wrap around (fuzz_npu_arguments found the sum).
    const TensorShape& stored = tensor.stored_shape();
    const Strides& s = tensor.strides();
    for (const int dim : {0, 2, 3})
      row_tail_ = checked_add(row_tail_, checked_multiply(stored[dim] - 1, s[dim], "a stride"),
                              "a channel row's extent");
  }

  // First and last byte (inclusive) of the NPU holding `channels` channels from `first_channel`.
  std::pair<int64_t, int64_t> byte_range(int64_t first_channel, int64_t channels) const {
    const int64_t npus = tensor_.device().npus;
    const int64_t first_row = tensor_.row_of_channel(first_channel);
    const int64_t last_row = tensor_.row_of_channel(first_channel + (channels - 1) * npus);
    return {bytes_at(first_row, 0),
            bytes_at(last_row, row_tail_) + tensor_.stored_element_bytes() - 1};
  }

 private:
  int64_t bytes_at(int64_t row, int64_t tail) const {
    const int64_t elements = checked_add(
        checked_multiply(row, tensor_.strides()[1], "a channel row's offset"), tail, "an offset");
    return checked_add(tensor_.start().offset,
                       checked_multiply(elements, tensor_.stored_element_bytes(), "a byte offset"),
                       "a byte offset");
  }

  const LocalTensor& tensor_;
  int64_t row_tail_ = 0;
};

// Channels on the NPU whose first channel is `first_channel` (< C): first, first + X, ...
int64_t channels_from(const LocalTensor& tensor, int64_t first_channel) {
  return (tensor.shape()[1] - 1 - first_channel) / tensor.device().npus + 1;
}

}  // namespace

int64_t busiest_npu_span_bytes(const LocalTensor& tensor) {
  // An NPU's span is (its channel rows - 1) * CS + a channel row's extent, so with CS >= 0 it
  // grows with the NPU's channel count, which is largest on the NPU holding channel 0.
  const auto [first, last] = ChannelRows(tensor).byte_range(0, channels_from(tensor, 0));
  return last - first + 1;
}

Footprint footprint(const LocalTensor& tensor) {
  const Device& device = tensor.device();
  const TensorShape& shape = tensor.shape();
  const TensorShape& stored = tensor.stored_shape();
  const int64_t start_npu = tensor.start().npu;
  // A channel's bytes: every (n, h, w); packing makes N' * packing slots of which N are data.
  const int64_t hw = checked_multiply(shape[2], shape[3], "H*W");
  const int64_t channel_data = checked_multiply(
      checked_multiply(shape[0], hw, "a channel's elements"), tensor.element_bytes(), "bytes");
  const int64_t channel_slots =
      checked_multiply(checked_multiply(stored[0], packing_factor(tensor.storage_mode()), "N"),
                       checked_multiply(hw, tensor.element_bytes(), "bytes"), "a channel's bytes");
  const ChannelRows rows(tensor);

  Footprint result;
  result.npus.resize(device.npus);
  for (int64_t npu = 0; npu < device.npus; ++npu) {
    NpuFootprint& mine = result.npus[npu];
    mine.npu = npu;
    const int64_t first_channel = ((npu - start_npu) % device.npus + device.npus) % device.npus;
    if (first_channel >= shape[1]) continue;
    mine.channels = channels_from(tensor, first_channel);
    std::tie(mine.first_byte, mine.last_byte) = rows.byte_range(first_channel, mine.channels);
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
