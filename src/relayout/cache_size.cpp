#include "relayout/cache_size.h"

#include <algorithm>
#include <cctype>
#include <exception>
#include <fstream>
#include <string>

namespace tessera::relayout {
namespace {

// "32768K", "1M", "512" (bytes) as written by the kernel's cacheinfo; 0 when unreadable.
int64_t parse_size(const std::string& text) {
  std::size_t used = 0;
  int64_t value = 0;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    return 0;
  }
  const char unit = used < text.size() ? static_cast<char>(std::toupper(text[used])) : ' ';
  const int shift = unit == 'K' ? 10 : unit == 'M' ? 20 : unit == 'G' ? 30 : 0;
  return value > 0 && value < (int64_t{1} << 40) ? value << shift : 0;
}

std::string first_word(const std::string& path) {
  std::ifstream in(path);
  std::string word;
  in >> word;
  return word;
}

// Bytes of the data caches of levels 1 to 4 (index 0 unused).
struct CacheLevels {
  int64_t bytes[5] = {};
  int last = 0;
};

CacheLevels read_cache_levels() {
  CacheLevels levels;
  for (int index = 0; index < 16; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    const std::string type = first_word(dir + "/type");
    if (type.empty()) break;
    if (type == "Instruction") continue;
    const int level = static_cast<int>(parse_size(first_word(dir + "/level")));
    const int64_t size = parse_size(first_word(dir + "/size"));
    if (level < 1 || level > 4 || size <= 0) continue;
    levels.bytes[level] = size;
    levels.last = std::max(levels.last, level);
  }
  return levels;
}

const CacheLevels& cache_levels() {
  static const CacheLevels levels = read_cache_levels();
  return levels;
}

}  // namespace

int64_t last_level_cache_bytes() {
  return cache_levels().bytes[cache_levels().last];
}

int64_t data_cache_bytes(int level) {
  return level >= 1 && level <= 4 ? cache_levels().bytes[level] : 0;
}

}  // namespace tessera::relayout
