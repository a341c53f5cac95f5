#include "relayout/cache_size.h"

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

int64_t read_last_level_cache_bytes() {
  int best_level = 0;
  int64_t bytes = 0;
  for (int index = 0; index < 16; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    const std::string type = first_word(dir + "/type");
    if (type.empty()) break;
    if (type == "Instruction") continue;
    const int level = static_cast<int>(parse_size(first_word(dir + "/level")));
    const int64_t size = parse_size(first_word(dir + "/size"));
    if (level > best_level && size > 0) {
      best_level = level;
      bytes = size;
    }
  }
  return bytes;
}

}  // namespace

int64_t last_level_cache_bytes() {
  static const int64_t bytes = read_last_level_cache_bytes();
  return bytes;
}

}  // namespace tessera::relayout
