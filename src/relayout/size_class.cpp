#include "relayout/size_class.h"

#include <algorithm>
#include <cmath>

#include "relayout/cache_size.h"

namespace tessera::relayout {

const char* size_class_name(SizeClass s) {
  return s == SizeClass::kCache ? "cache" : "memory";
}

int64_t default_proxy_bytes(SizeClass s) {
  constexpr int64_t kMiB = int64_t{1} << 20;
  const int64_t llc = last_level_cache_bytes();
  if (s == SizeClass::kCache) return std::clamp<int64_t>(llc / 4, 4 * kMiB, 32 * kMiB);
  return std::clamp<int64_t>(llc / 2 * 3, 48 * kMiB, 128 * kMiB);
}

int64_t size_class_boundary() {
  static const auto boundary =
      static_cast<int64_t>(std::sqrt(static_cast<double>(default_proxy_bytes(SizeClass::kCache)) *
                                     static_cast<double>(default_proxy_bytes(SizeClass::kMemory))));
  return boundary;
}

SizeClass size_class_of(int64_t bytes) {
  return bytes >= size_class_boundary() ? SizeClass::kMemory : SizeClass::kCache;
}

}  // namespace tessera::relayout
