// The problems `tessera tune` measures each kernel class on (tuner.h): the class's own kernel,
// element size and row pitch, at the size of a size class (size_class.h).
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "relayout/tuner.h"

namespace tessera::relayout {

const char* proxy_element_type(int bytes) {
  return bytes == 1 ? "s8" : bytes == 2 ? "bf16" : bytes == 8 ? "f64" : "f32";
}

std::optional<std::pair<std::string, std::string>> proxy_layouts(const ProblemKey& key,
                                                                 int64_t bytes) {
  const int b = key.element_bytes;
  const char* type = proxy_element_type(b);
  // Rows 16 KiB apart ("page"), 16000 bytes ("line"), 16368 bytes ("odd") or 64 KiB ("wide").
  const int64_t row_bytes = key.pitch == "line"   ? 16000
                            : key.pitch == "odd"  ? 16368
                            : key.pitch == "wide" ? 65536
                                                  : 16384;
  const int64_t columns = row_bytes / b;
  const int64_t rows = std::max<int64_t>(128, bytes / row_bytes / 128 * 128);
  const std::string shape = fmt::format("{}[{},{}]", type, rows, columns);
  using Pair = std::pair<std::string, std::string>;
  switch (key.kernel_class) {
    case KernelClass::kRuns:
      return Pair{shape + "{1,0:T(8,128)}", shape + "{1,0}"};
    case KernelClass::kRunsTile:
      return Pair{shape + "{1,0}", shape + "{1,0:T(8,128)}"};
    case KernelClass::kRunsSpread: {
      // f32[N,256,64,64] into the image of 64 NPUs, 2.5 times the data each or more (a BM1684
      // image holds 12.25 MiB of such data in 32 MiB).
      const int64_t n = std::max<int64_t>(1, bytes / 2 / (int64_t{4} << 20));
      int64_t npu = 1 << 20;
      while (2 * npu < 5 * n * (int64_t{64} << 10)) npu *= 2;
      return Pair{fmt::format("f32[{},256,64,64]{{3,2,1,0}}", n),
                  fmt::format("npu:npus=64,lmem={},align=64:{},256,64,64:f32:0:aligned", npu, n)};
    }
    case KernelClass::kTranspose:
      return Pair{shape + "{1,0}", shape + "{0,1}"};
    case KernelClass::kTileTranspose:
      return Pair{shape + "{1,0:T(8,128)}", shape + "{0,1:T(8,128)}"};
    case KernelClass::kTileGather:
      return Pair{shape + "{0,1}", shape + "{1,0:T(8,128)}"};
    case KernelClass::kInterleave:
    case KernelClass::kDeinterleave: {
      const std::string tiled =
          b == 1 ? shape + "{1,0:T(32,128)(4,1)}" : shape + "{1,0:T(8,128)(2,1)}";
      if (b != 1 && b != 2) return std::nullopt;
      return key.kernel_class == KernelClass::kInterleave ? Pair{shape + "{1,0}", tiled}
                                                          : Pair{tiled, shape + "{1,0}"};
    }
    case KernelClass::kPackBits: {
      const std::string bits = fmt::format("pred[{},{}]", rows, row_bytes);
      return Pair{bits + "{1,0}", bits + "{1,0:T(32,128)(32,1)E(1)}"};
    }
    case KernelClass::kNone:
      break;
  }
  return std::nullopt;
}

}  // namespace tessera::relayout
