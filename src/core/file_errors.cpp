#include "tessera/file_errors.h"

#include <fmt/format.h>

#include <cstring>
#include <filesystem>
#include <system_error>

namespace tessera {

Error file_error(std::string_view action, std::string_view path, int error_number) {
  if (error_number == 0) return Error(ErrorKind::kIo, fmt::format("cannot {} '{}'", action, path));
  return Error(ErrorKind::kIo,
               fmt::format("cannot {} '{}': {}", action, path, std::strerror(error_number)));
}

void refuse_directory(std::string_view action, const std::string& path) {
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) {
    throw Error(ErrorKind::kIo,
                fmt::format("cannot {} '{}': it is a directory, not a file", action, path));
  }
}

}  // namespace tessera
