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

// `tessera npu info --json`: one object; its keys are described in
// docs/reference/json/npu-info.schema.json (footprint.h says how the spans are counted).
nlohmann::ordered_json local_tensor_report_json(const LocalTensor& tensor);

// The same facts for people, one per line.
std::string local_tensor_report_text(const LocalTensor& tensor);

// `tessera npu matrix --json`: the matrix's keys (best_w only when `searched`), then every key of
// the tensor report; docs/reference/json/npu-matrix.schema.json.
nlohmann::ordered_json matrix_report_json(const MatrixLayout& matrix, bool searched);
std::string matrix_report_text(const MatrixLayout& matrix, bool searched);

}  // namespace tessera::npu
