// The one way tessera opens an input file: without ever blocking
// (O_NONBLOCK: a FIFO that no one writes to would hold open() forever), then fstat, and only a
// regular file is read: a pipe, a device or a socket has no size to check before reading, and
// /dev/zero never ends. Every front end refuses them with the same words:
//   cannot read 'PATH': it is a FIFO (named pipe), not a regular file; tessera reads only files
//   whose size it can check first
#pragma once

#include <cstdint>
#include <string>

namespace tessera {

// An open descriptor of a regular file and its size; the caller closes it.
struct RegularFile {
  int descriptor = -1;
  int64_t size = 0;
};

// Throws Error(kIo) naming the file and why: missing, unreadable, a directory, or another kind
// of file that is not regular.
RegularFile open_regular_file(const std::string& path);

// The whole of a regular file as bytes, for small inputs (plans, reports). A file larger than
// `max_bytes` is refused (Error(kOutOfRange), with both sizes) before any byte is read.
std::string read_regular_file(const std::string& path, int64_t max_bytes);

}  // namespace tessera
