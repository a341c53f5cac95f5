#include "tessera/io/input_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "tessera/error.h"
#include "tessera/file_errors.h"

namespace tessera::io {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw Error(ErrorKind::kIo, fmt::format("cannot read '{}': {}", path, why));
}

}  // namespace

InputFile::InputFile(std::string path) : path_(std::move(path)) {
  const int descriptor = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (descriptor < 0) throw file_error("read", path_, errno);
  struct stat status {};
  if (::fstat(descriptor, &status) != 0) {
    const int why = errno;
    ::close(descriptor);
    throw file_error("read", path_, why);
  }
  if (!S_ISREG(status.st_mode)) {
    ::close(descriptor);
    fail(path_, S_ISDIR(status.st_mode)
                    ? "it is a directory, not a file"
                    : "not a regular file, so its size cannot be known before reading it");
  }
  size_ = status.st_size;
  if (size_ > 0) {
    void* address =
        ::mmap(nullptr, static_cast<std::size_t>(size_), PROT_READ, MAP_PRIVATE, descriptor, 0);
    const int why = errno;
    ::close(descriptor);
    if (address == MAP_FAILED) throw file_error("read", path_, why);
    ::madvise(address, static_cast<std::size_t>(size_), MADV_SEQUENTIAL);
    mapping_ = static_cast<std::byte*>(address);
  } else {
    ::close(descriptor);
  }
}

InputFile::~InputFile() {
  if (mapping_ != nullptr) ::munmap(mapping_, static_cast<std::size_t>(size_));
}

void InputFile::release_mapped_pages() const {
  // The mapping is never written, so no private copy exists: dropped pages are re-read from the
  // page cache.
  if (mapping_ != nullptr) ::madvise(mapping_, static_cast<std::size_t>(size_), MADV_DONTNEED);
}

std::span<const std::byte> InputFile::bytes() const {
  return {mapping_, static_cast<std::size_t>(size_)};
}

}  // namespace tessera::io
