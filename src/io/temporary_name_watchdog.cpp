#include "tessera/io/temporary_name_watchdog.h"

#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <utility>

namespace tessera::io {
namespace {

// The child of a possibly multi-threaded process may only make async-signal-safe calls.
[[noreturn]] void watch(int socket, const char* path) {
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) ::sigaction(s, &ignore, nullptr);
  // Hold nothing of the parent's: not its output pipes (a caller waiting for their end-of-file),
  // not other watchdogs' sockets (their children would wait on this one).
  const auto fd = static_cast<unsigned>(socket);
  const bool closed =
      (fd == 0 || ::close_range(0, fd - 1, 0) == 0) && ::close_range(fd + 1, ~0U, 0) == 0;
  if (!closed) {  // kernels before 5.9 have no close_range
    struct rlimit open_files {};
    ::getrlimit(RLIMIT_NOFILE, &open_files);
    const rlim_t last = open_files.rlim_cur < 65536 ? open_files.rlim_cur : 65536;
    for (unsigned other = 0; other < last; ++other)
      if (other != fd) ::close(static_cast<int>(other));
  }
  char byte = 0;
  ssize_t got = 0;
  do {
    got = ::read(socket, &byte, 1);
  } while (got < 0 && errno == EINTR);
  if (got == 0) ::unlink(path);  // end-of-file without a byte: the parent died
  ::_exit(0);
}

}  // namespace

TemporaryNameWatchdog::TemporaryNameWatchdog(const std::string& path) {
  int ends[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) return;
  // _Fork, not fork: no pthread_atfork handlers (OpenBLAS's, under NumPy, would stop its threads).
  const pid_t child = ::_Fork();
  if (child == 0) watch(ends[1], path.c_str());
  ::close(ends[1]);
  if (child < 0) {
    ::close(ends[0]);
    return;
  }
  socket_ = ends[0];
  child_ = child;
}

TemporaryNameWatchdog::TemporaryNameWatchdog(TemporaryNameWatchdog&& other) noexcept
    : socket_(std::exchange(other.socket_, -1)), child_(std::exchange(other.child_, -1)) {}

TemporaryNameWatchdog& TemporaryNameWatchdog::operator=(TemporaryNameWatchdog&& other) noexcept {
  if (this != &other) {
    dismiss();
    socket_ = std::exchange(other.socket_, -1);
    child_ = std::exchange(other.child_, -1);
  }
  return *this;
}

void TemporaryNameWatchdog::dismiss() {
  if (child_ <= 0) return;
  // MSG_NOSIGNAL: a child killed by someone else must not turn this into a SIGPIPE.
  const char handled = 1;
  while (::send(socket_, &handled, 1, MSG_NOSIGNAL) < 0 && errno == EINTR) {
  }
  ::close(socket_);
  while (::waitpid(child_, nullptr, 0) < 0 && errno == EINTR) {
  }
  socket_ = -1;
  child_ = -1;
}

}  // namespace tessera::io
