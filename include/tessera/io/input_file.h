// An input file checked before it is read: its size comes from fstat, so a file
// of the wrong size is refused without reading a byte, and anything whose size cannot be known
// first (/dev/zero, a pipe, a directory) is refused, without blocking (tessera/regular_file.h). The
// bytes are mapped read-only with MADV_SEQUENTIAL, so they cost page cache, not anonymous memory,
// whatever the file's size.
//
//   io::InputFile in("weights.npy");   // Error(kIo): "cannot read 'w.npy': No such file ..."
//   in.bytes().size() == in.size();     // mapped lazily: pages are read as they are touched
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace tessera::io {

class InputFile {
 public:
  // Throws Error(kIo) naming the file and the reason: missing, unreadable, a directory, or not a
  // regular file.
  explicit InputFile(std::string path);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  int64_t size() const { return size_; }
  std::span<const std::byte> bytes() const;
  const std::string& path() const { return path_; }
  // Unmaps the pages read so far from this process (they stay in the page cache and are mapped
  // again if touched): keeps the resident set bounded while a large file is read in pieces.
  void release_mapped_pages() const;

 private:
  std::string path_;
  int64_t size_ = 0;
  std::byte* mapping_ = nullptr;
};

}  // namespace tessera::io
