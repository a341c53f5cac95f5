// Fuzzes the .npy header parser: any bytes are either refused with tessera::Error or give a
// header that tessera writes back and re-reads to the same descr and shape.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "tessera/error.h"
#include "tessera/relayout/npy_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  tessera::relayout::NpyHeader header;
  try {
    header = tessera::relayout::parse_npy_header(bytes);
  } catch (const tessera::Error&) {
    return 0;
  }
  if (header.data_offset > static_cast<int64_t>(size)) __builtin_trap();
  if (header.descr.find_first_of("'\"") != std::string::npos) return 0;
  const std::string written = tessera::relayout::npy_header(header.descr, header.shape);
  const auto again = tessera::relayout::parse_npy_header(
      std::span(reinterpret_cast<const std::byte*>(written.data()), written.size()));
  if (again.descr != header.descr || again.shape != header.shape || again.data_offset % 64 != 0) {
    __builtin_trap();
  }
  return 0;
}
