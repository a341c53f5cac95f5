// De-tiling a weight on the host, as a PJRT plugin or weight-sync tool would: the device holds a
// 16-bit [4,300] weight (bf16 bits, handled as u16) in the TPU's tiled layout T(8,128)(2,1); copy
// it into plain row-major order with a relayout plan (built once, executed per buffer) and check
// one element against IndexMap::linear_index. Built against an installed tessera with find_package
// (CMakeLists.txt here) or pkg-config:
//   c++ -std=c++20 detile_weights.cpp $(pkg-config --cflags --libs tessera)
#include <tessera/index_map.h>
#include <tessera/relayout/relayout_plan.h>
#include <tessera/version.h>
#include <tessera/xla/notation.h>
#include <tessera/xla/tiled_layout.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

int main() {
  const tessera::xla::TiledLayout device(
      tessera::xla::parse_shape("u16[4,300]{1,0:T(8,128)(2,1)}"));
  const tessera::xla::TiledLayout host(tessera::xla::parse_shape("u16[4,300]{1,0}"));
  std::printf("tessera %s: device %lld bytes (%.1f%% padding), host %lld bytes\n", TESSERA_VERSION,
              static_cast<long long>(device.size_bytes()), 100.0 * device.padding_fraction(),
              static_cast<long long>(host.size_bytes()));

  // Fill the device buffer: element (r, c) holds r * 1000 + c at its tiled offset.
  std::vector<std::byte> device_bytes(static_cast<size_t>(device.size_bytes()));
  for (int64_t r = 0; r < 4; ++r) {
    for (int64_t c = 0; c < 300; ++c) {
      const std::array<int64_t, 2> index{r, c};
      const auto value = static_cast<uint16_t>(r * 1000 + c);
      std::memcpy(&device_bytes[static_cast<size_t>(device.index_map().linear_index(index)) * 2],
                  &value, sizeof value);
    }
  }

  const auto plan = tessera::relayout::plan(device.index_map(), host.index_map(), {});
  std::vector<std::byte> host_bytes(static_cast<size_t>(host.size_bytes()));
  plan.execute(device_bytes, host_bytes);

  // Row-major: element (3, 299) is the last one.
  uint16_t last = 0;
  std::memcpy(&last, &host_bytes[(3 * 300 + 299) * 2], sizeof last);
  const std::array<int64_t, 2> last_index{3, 299};
  std::printf("element (3,299) at tiled offset %lld -> row-major value %u\n",
              static_cast<long long>(device.index_map().linear_index(last_index)), last);
  return last == 3299 ? 0 : 1;
}
