// What `tessera npu info` and `tessera npu matrix` report, as JSON and as text, for every front
// end (CLI, `tessera explain npu`, Python).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "tessera/npu/device.h"
#include "tessera/npu/local_tensor.h"
#include "tessera/npu/matrix_layout.h"

namespace tessera::npu {

// {name, npus, local_memory_bytes, alignment_bytes, banks, bank_bytes}.
nlohmann::ordered_json device_json(const Device& device);

// One object: device, shape, dtype, element_bytes, storage_mode, stored_dtype,
// stored_element_bytes, stored_shape, layout, n_stride_rule, address, start_npu, start_offset,
// start_bank, channels_per_npu, strides (N,C,H,W in stored elements), strides_bytes,
// continuous_strides (system memory, spec "Continuous Layout"), npus_touched, bytes_per_npu (X
// spans, footprint.h), data_bytes_per_npu, busiest_npu_bytes, reserved_bytes_per_npu, data_bytes,
// dummy_bytes, gap_bytes, unused_bytes, wasted_bytes, fits, overrun_bytes, and footprint (per
// touched NPU: npu, channels, first_byte, last_byte, span_bytes, data_bytes, dummy_bytes).
nlohmann::ordered_json local_tensor_report_json(const LocalTensor& tensor);

// The same facts for people, one per line.
std::string local_tensor_report_text(const LocalTensor& tensor);

// rows, cols, w, best_w (when `searched`), channels, last_channel_columns, row_bytes_per_npu,
// local_memory_per_npu (what the best-W search minimises), then every key of the tensor report.
nlohmann::ordered_json matrix_report_json(const MatrixLayout& matrix, bool searched);
std::string matrix_report_text(const MatrixLayout& matrix, bool searched);

}  // namespace tessera::npu
