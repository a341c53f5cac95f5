// Fuzzes the NPU argument parsers (device, shape, layout, storage mode, address, index) and the
// LocalTensor / MatrixLayout they build: any text must either be rejected with tessera::Error or
// give a tensor whose placement is inside its NPU, injective, and inverted by its IndexMap.
// Input: fields separated by '|': device|shape|dtype|address|layout|mode|index.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/error.h"
#include "tessera/integer_text.h"
#include "tessera/npu/npu_arguments.h"
#include "tessera/npu/npu_report.h"

namespace {

std::vector<std::string> fields(std::string_view text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (out.size() < 7) {
    const std::size_t bar = text.find('|', start);
    out.emplace_back(text.substr(start, bar == std::string_view::npos ? bar : bar - start));
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
  out.resize(7);
  return out;
}

void check_tensor(const tessera::npu::LocalTensor& tensor) {
  tessera::npu::local_tensor_report_json(tensor);
  if (!tensor.fits()) return;
  const auto& map = tensor.index_map();
  if (map.logical_elements() > 4096) return;
  const int64_t s = tensor.device().local_memory_bytes;
  std::set<int64_t> seen;
  for (tessera::LogicalWalker walk(map); !walk.done(); walk.next()) {
    const auto index = walk.index();
    const auto place = tensor.place(index);
    if (place.byte_offset < 0 || place.byte_offset + tensor.element_bytes() > s) __builtin_trap();
    if (!seen.insert(place.address).second) __builtin_trap();
    if (place.address != walk.offset() * tensor.element_bytes()) __builtin_trap();
    const auto back = map.logical_index(walk.offset());
    if (!back || !std::equal(back->begin(), back->end(), index.begin())) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::vector<std::string> f = fields(text);
  try {
    tessera::npu::parse_device(text);
  } catch (const tessera::Error&) {
  }
  try {
    const tessera::npu::LocalTensor tensor =
        tessera::npu::make_local_tensor({f[0], f[1], f[2], f[3], f[4], f[5]});
    check_tensor(tensor);
    tensor.place(tessera::parse_integer_list(f[6], "index"));
  } catch (const tessera::Error&) {
  }
  try {
    // The same fields as a matrix: device|rows|dtype|address|cols|W|index.
    tessera::npu::MatrixArguments matrix;
    matrix.device = f[0];
    matrix.rows = f[1];
    matrix.dtype = f[2];
    matrix.address = f[3];
    matrix.columns = f[4];
    if (f[5] == "best") {
      matrix.best_width = true;
    } else {
      matrix.width = f[5];
    }
    const tessera::npu::MatrixLayout layout = tessera::npu::make_matrix_layout(matrix);
    check_tensor(layout.tensor());
  } catch (const tessera::Error&) {
  }
  return 0;
}
