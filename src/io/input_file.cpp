#include "tessera/io/input_file.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

#include "tessera/file_errors.h"
#include "tessera/regular_file.h"

namespace tessera::io {

InputFile::InputFile(std::string path) : path_(std::move(path)) {
  const RegularFile file = open_regular_file(path_);
  size_ = file.size;
  if (size_ > 0) {
    void* address = ::mmap(nullptr, static_cast<std::size_t>(size_), PROT_READ, MAP_PRIVATE,
                           file.descriptor, 0);
    const int why = errno;
    ::close(file.descriptor);
    if (address == MAP_FAILED) throw file_error("read", path_, why);
    ::madvise(address, static_cast<std::size_t>(size_), MADV_SEQUENTIAL);
    mapping_ = static_cast<std::byte*>(address);
  } else {
    ::close(file.descriptor);
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
