#include "tessera/npu/npu_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tessera/npu/footprint.h"

namespace tessera::npu {
namespace {

std::string_view layout_name(LayoutKind kind) {
  switch (kind) {
    case LayoutKind::kAligned:
      return "aligned";
    case LayoutKind::kCompact:
      return "compact";
    case LayoutKind::kStrides:
      return "strides";
  }
  return "aligned";
}

std::string_view rule_name(NStrideRule rule) {
  return rule == NStrideRule::kChannelsPerNpu ? "channels_per_npu" : "gdma_ignoring_start_npu";
}

std::string tuple(const std::array<int64_t, 4>& values) {
  return fmt::format("({})", fmt::join(values, ","));
}

}  // namespace

nlohmann::ordered_json device_json(const Device& device) {
  return {{"name", device.name},
          {"npus", device.npus},
          {"local_memory_bytes", device.local_memory_bytes},
          {"alignment_bytes", device.alignment_bytes},
          {"banks", device.banks},
          {"bank_bytes", device.bank_bytes()}};
}

nlohmann::ordered_json local_tensor_report_json(const LocalTensor& tensor) {
  const Footprint fp = footprint(tensor);
  std::vector<int64_t> bytes_per_npu;
  std::vector<int64_t> data_bytes_per_npu;
  nlohmann::ordered_json per_npu = nlohmann::ordered_json::array();
  for (const NpuFootprint& npu : fp.npus) {
    bytes_per_npu.push_back(npu.span_bytes);
    data_bytes_per_npu.push_back(npu.data_bytes);
    if (npu.channels == 0) continue;
    per_npu.push_back({{"npu", npu.npu},
                       {"channels", npu.channels},
                       {"first_byte", npu.first_byte},
                       {"last_byte", npu.last_byte},
                       {"span_bytes", npu.span_bytes},
                       {"data_bytes", npu.data_bytes},
                       {"dummy_bytes", npu.dummy_bytes}});
  }
  Strides strides_bytes = tensor.strides();
  for (int64_t& stride : strides_bytes) stride *= tensor.stored_element_bytes();
  return {
      {"device", device_json(tensor.device())},
      {"shape", tensor.shape()},
      {"dtype", std::string(element_type_name(tensor.element_type()))},
      {"element_bytes", tensor.element_bytes()},
      {"storage_mode", std::string(storage_mode_name(tensor.storage_mode()))},
      {"stored_dtype", stored_type_name(tensor.storage_mode(), tensor.element_type())},
      {"stored_element_bytes", tensor.stored_element_bytes()},
      {"stored_shape", tensor.stored_shape()},
      {"layout",
       tensor.layout().gdma ? std::string("gdma") : std::string(layout_name(tensor.layout().kind))},
      {"n_stride_rule", std::string(rule_name(tensor.layout().n_stride_rule))},
      {"address", tensor.address()},
      {"start_npu", tensor.start().npu},
      {"start_offset", tensor.start().offset},
      {"start_bank", tensor.start().bank},
      {"channels_per_npu", tensor.channels_per_npu()},
      {"strides", tensor.strides()},
      {"strides_bytes", strides_bytes},
      {"continuous_strides", continuous_strides(tensor.shape())},
      {"npus_touched", fp.npus_touched},
      {"bytes_per_npu", bytes_per_npu},
      {"data_bytes_per_npu", data_bytes_per_npu},
      {"busiest_npu_bytes", fp.busiest_npu_bytes},
      {"reserved_bytes_per_npu", fp.reserved_bytes_per_npu},
      {"data_bytes", fp.data_bytes},
      {"dummy_bytes", fp.dummy_bytes},
      {"gap_bytes", fp.gap_bytes},
      {"unused_bytes", fp.unused_bytes},
      {"wasted_bytes", fp.wasted_bytes},
      {"fits", fp.fits},
      {"overrun_bytes", fp.overrun_bytes},
      {"footprint", per_npu},
  };
}

std::string local_tensor_report_text(const LocalTensor& tensor) {
  const Footprint fp = footprint(tensor);
  const Device& device = tensor.device();
  std::string out;
  out += fmt::format("device            {}: {} NPUs x {} bytes, alignment {} bytes, {} bank{}\n",
                     device.name, device.npus, device.local_memory_bytes, device.alignment_bytes,
                     device.banks, device.banks == 1 ? "" : "s");
  out += fmt::format("tensor            {}{} {} layout, storage mode {}\n",
                     element_type_name(tensor.element_type()), tuple(tensor.shape()),
                     layout_name(tensor.layout().kind), storage_mode_name(tensor.storage_mode()));
  out += fmt::format("stored as         {}{} ({} bytes per stored element)\n",
                     stored_type_name(tensor.storage_mode(), tensor.element_type()),
                     tuple(tensor.stored_shape()), tensor.stored_element_bytes());
  out +=
      fmt::format("start             address {} = NPU {}, offset {} (bank {})\n", tensor.address(),
                  tensor.start().npu, tensor.start().offset, tensor.start().bank);
  // The channel rows (JSON: channels_per_npu): how many channels every NPU reserves room for in
  // each batch, whether or not one lands there; not the channels an NPU holds (listed below).
  out += fmt::format("channel rows      {} (room for {} channel{} per batch on every NPU)\n",
                     tensor.channels_per_npu(), tensor.channels_per_npu(),
                     tensor.channels_per_npu() == 1 ? "" : "s");
  out += fmt::format("strides (N,C,H,W) {} stored elements\n", tuple(tensor.strides()));
  out += fmt::format("NPUs touched      {} of {}\n", fp.npus_touched.size(), device.npus);
  // Consecutive NPUs with the same footprint share a line: 64 NPUs often have two kinds.
  const auto same = [](const NpuFootprint& a, const NpuFootprint& b) {
    return a.channels == b.channels && a.first_byte == b.first_byte && a.last_byte == b.last_byte &&
           a.data_bytes == b.data_bytes && a.dummy_bytes == b.dummy_bytes;
  };
  for (std::size_t first = 0; first < fp.npus.size();) {
    std::size_t last = first;
    while (last + 1 < fp.npus.size() && same(fp.npus[last + 1], fp.npus[first])) ++last;
    const NpuFootprint& npu = fp.npus[first];
    const std::string npus =
        first == last ? fmt::format("NPU {}", first) : fmt::format("NPUs {}-{}", first, last);
    if (npu.channels == 0) {
      out += fmt::format("  {:<10} empty\n", npus);
    } else {
      out += fmt::format("  {:<10} {} channel{} each, bytes [{}, {}]: span {}, data {}", npus,
                         npu.channels, npu.channels == 1 ? "" : "s", npu.first_byte, npu.last_byte,
                         npu.span_bytes, npu.data_bytes);
      out += npu.dummy_bytes > 0 ? fmt::format(", dummies {}\n", npu.dummy_bytes) : "\n";
    }
    first = last + 1;
  }
  out += fmt::format("busiest NPU       {} bytes\n", fp.busiest_npu_bytes);
  out += fmt::format("reserved per NPU  {} bytes from offset {}\n", fp.reserved_bytes_per_npu,
                     tensor.start().offset);
  out += fmt::format("data              {} bytes\n", fp.data_bytes);
  out += fmt::format("wasted            {} bytes (gaps {}, empty NPUs/slots {}, dummies {})\n",
                     fp.wasted_bytes, fp.gap_bytes, fp.unused_bytes, fp.dummy_bytes);
  out += fp.fits ? std::string("fits              yes\n")
                 : fmt::format(
                       "fits              no: runs past the end of local memory by {} "
                       "bytes\n",
                       fp.overrun_bytes);
  return out;
}

nlohmann::ordered_json matrix_report_json(const MatrixLayout& matrix, bool searched) {
  nlohmann::ordered_json out = {
      {"rows", matrix.rows()}, {"cols", matrix.columns()}, {"w", matrix.width()}};
  if (searched) out["best_w"] = matrix.width();
  out["channels"] = matrix.channels();
  out["last_channel_columns"] = matrix.last_channel_columns();
  out["row_bytes_per_npu"] = matrix.row_bytes_per_npu();
  out["local_memory_per_npu"] = matrix.local_memory_per_npu();
  const nlohmann::ordered_json tensor = local_tensor_report_json(matrix.tensor());
  for (auto it = tensor.begin(); it != tensor.end(); ++it) out[it.key()] = *it;
  return out;
}

std::string matrix_report_text(const MatrixLayout& matrix, bool searched) {
  std::string out = fmt::format("matrix            {} x {}, W = {} columns per channel{}\n",
                                matrix.rows(), matrix.columns(), matrix.width(),
                                searched ? " (best: least local memory per NPU)" : "");
  out += fmt::format("channels          {} (last channel holds {} columns)\n", matrix.channels(),
                     matrix.last_channel_columns());
  out += fmt::format("row bytes per NPU {}\n", matrix.row_bytes_per_npu());
  out += fmt::format("memory per NPU    {} bytes (busiest NPU)\n", matrix.local_memory_per_npu());
  return out + local_tensor_report_text(matrix.tensor());
}

}  // namespace tessera::npu
