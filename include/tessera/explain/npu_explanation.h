// `tessera explain npu ...`: where a tensor lands in NPU local memory, what it wastes NPU by
// NPU, and which placement (start NPU, aligned or compact, matrix W) would waste less.
//
// Sizes: a tensor reserves the same band of bytes in every NPU (footprint.h: from its start
// offset to the last byte of the busiest NPU; the spec advises against reusing the empty
// blocks), so size_bytes = X * reserved_bytes_per_npu = data + wasted. logical_bytes counts the
// real elements (for a matrix N*M elements, not the columns past M in its last channel).
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tessera/npu/local_tensor.h"
#include "tessera/npu/matrix_layout.h"

namespace tessera::explain {

// One row of the NPU table.
struct NpuUsage {
  int64_t npu = 0;
  int64_t channels = 0;
  int64_t used_bytes = 0;  // the NPU's span: first to last byte of its elements
  int64_t data_bytes = 0;
  int64_t wasted_bytes = 0;    // reserved band - data: gaps, dummies, or the whole band if empty
  std::vector<int64_t> banks;  // banks the span touches
  bool fits = true;            // the span ends inside the NPU's local memory
};

struct NpuSuggestion {
  std::string layout;  // the placement as `tessera npu` arguments, ready to paste
  int64_t size_bytes = 0;
  int64_t bytes_saved = 0;
  int64_t bytes_per_npu = 0;
  bool fits = true;
  std::string change;  // "start at NPU 0", "compact layout", "W = 10"
};

struct NpuExplanation {
  std::string layout;  // the placement explained, as `tessera npu` arguments
  int64_t logical_bytes = 0;
  int64_t size_bytes = 0;
  double padding_fraction = 0.0;
  std::vector<NpuUsage> npus;
  std::vector<NpuSuggestion> suggestions;  // best first: fitting ones, then fewest bytes
  std::optional<int64_t> best_w;           // matrices only
  nlohmann::ordered_json report;           // the NPU family's own `npu info`/`npu matrix` JSON
  std::string report_text;
};

// "--device npus=4,lmem=1024,align=128,banks=1 --shape 2,3,4,5 --dtype f32 --address 2048
//  --layout aligned" (presets by name; --mode and --gdma-row-stride only when set).
std::string placement_arguments(const npu::LocalTensor& tensor);
// "--device bm1684 --rows 2 --cols 40 --dtype f32 --address 0 --w 10".
std::string placement_arguments(const npu::MatrixLayout& matrix);

// Example (spec "Scatter Features", X=4, S=1024, f32 (1,6,1,1) aligned at NPU 3): 3 channel
// rows per NPU, NPU 0 ends at byte 259, so size 4*260 = 1040 bytes for 24 bytes of data; the
// first suggestion is the compact layout at NPU 0 (8 bytes per NPU, 32 in all).
NpuExplanation explain_local_tensor(const npu::LocalTensor& tensor, std::size_t max_suggestions);

// Example (spec "Matrix Layout", X=4, f32 2x40 at NPU 0, W=40): 416 bytes per NPU, 1664 in all;
// best_w 10 (168 bytes per NPU, 672 in all), which is the first suggestion.
NpuExplanation explain_matrix(const npu::MatrixLayout& matrix, std::size_t max_suggestions);

// `tessera explain npu --json` for a tensor or a matrix:
// docs/reference/json/explain-npu.schema.json
// ("one tensor or matrix") describes the keys.
nlohmann::ordered_json npu_explanation_json(const NpuExplanation& explanation);
std::string npu_explanation_text(const NpuExplanation& explanation);

}  // namespace tessera::explain
