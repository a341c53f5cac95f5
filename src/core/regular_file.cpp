#include "tessera/regular_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "tessera/error.h"
#include "tessera/file_errors.h"

namespace tessera {
namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

RegularFile open_regular_file(const std::string& path) {
  const int descriptor = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (descriptor < 0) throw file_error("read", path, errno);
  struct stat status {};
  if (::fstat(descriptor, &status) != 0) {
    const int why = errno;
    ::close(descriptor);
    throw file_error("read", path, why);
  }
  if (!S_ISREG(status.st_mode)) {
    ::close(descriptor);
    if (S_ISDIR(status.st_mode)) {
      throw Error(ErrorKind::kIo,
                  fmt::format("cannot read '{}': it is a directory, not a file", path));
    }
    throw Error(ErrorKind::kIo,
                fmt::format("cannot read '{}': it is {}, not a regular file; tessera reads only "
                            "files whose size it can check first",
                            path, kind_of(status.st_mode)));
  }
  return {descriptor, static_cast<int64_t>(status.st_size)};
}

namespace {

// Files of /proc and /sys are regular but say they hold 0 bytes (their text is made as it is
// read): read to the end, still refusing more than `max_bytes`.
std::string read_unsized(const RegularFile& file, const std::string& path, int64_t max_bytes) {
  std::string bytes;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t got = ::read(file.descriptor, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const int why = errno;
      ::close(file.descriptor);
      throw file_error("read", path, why);
    }
    if (got == 0) break;
    if (static_cast<int64_t>(bytes.size()) + got > max_bytes) {
      ::close(file.descriptor);
      throw Error(ErrorKind::kOutOfRange,
                  fmt::format("cannot read '{}': it holds more than {} bytes; tessera reads at "
                              "most {} here",
                              path, max_bytes, max_bytes));
    }
    bytes.append(buffer, static_cast<std::size_t>(got));
  }
  ::close(file.descriptor);
  return bytes;
}

}  // namespace

std::string read_regular_file(const std::string& path, int64_t max_bytes) {
  const RegularFile file = open_regular_file(path);
  if (file.size == 0) return read_unsized(file, path, max_bytes);
  if (file.size > max_bytes) {
    ::close(file.descriptor);
    throw Error(ErrorKind::kOutOfRange,
                fmt::format("cannot read '{}': it holds {} bytes; tessera reads at most {} here",
                            path, file.size, max_bytes));
  }
  std::string bytes(static_cast<std::size_t>(file.size), '\0');
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t got = ::read(file.descriptor, bytes.data() + done, bytes.size() - done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {  // an error, or a file that shrank while it was read
      const int why = got < 0 ? errno : 0;
      ::close(file.descriptor);
      if (why != 0) throw file_error("read", path, why);
      bytes.resize(done);
      return bytes;
    }
    done += static_cast<std::size_t>(got);
  }
  ::close(file.descriptor);
  return bytes;
}

}  // namespace tessera
