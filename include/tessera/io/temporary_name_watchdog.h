// Removes a named temporary file when the process that made it dies before it is handled, even by
// SIGKILL, which no signal handler sees. AtomicFile needs it where the file system has no
// O_TMPFILE (overlayfs before Linux 6.6, for one): there the temporary has a name from the start,
// and a CI run on such a host found `kill -9` of `tessera convert` leaving
// ".out.bin.tessera-16846-0" beside the output.
//
// How: a child process, forked at construction, blocks reading one end of a socket pair. dismiss()
// sends it a byte ("renamed or removed: leave it") and reaps it. If this process dies first, the
// kernel closes its end, the child reads end-of-file and unlinks the name. The child lives only as
// long as this object, holds no other descriptor, ignores terminal signals (the parent's handler
// cleans up on those) and does nothing but wait, unlink and exit.
//
//   TemporaryNameWatchdog watchdog(".out.bin.tessera-42-0");  // after creating that file
//   ...                                                         // kill -9 here: the child unlinks
//   ::rename(".out.bin.tessera-42-0", "out.bin");
//   watchdog.dismiss();                                         // the child exits, unlinks nothing
#pragma once

#include <string>

namespace tessera::io {

class TemporaryNameWatchdog {
 public:
  // Without a watchdog (none wanted, or fork failed: a process limit, say) the name is only removed
  // by its owner's destructor and signal handlers, as before; nothing fails because of it.
  TemporaryNameWatchdog() = default;
  explicit TemporaryNameWatchdog(const std::string& path);
  ~TemporaryNameWatchdog() { dismiss(); }
  TemporaryNameWatchdog(TemporaryNameWatchdog&& other) noexcept;
  TemporaryNameWatchdog& operator=(TemporaryNameWatchdog&& other) noexcept;
  TemporaryNameWatchdog(const TemporaryNameWatchdog&) = delete;
  TemporaryNameWatchdog& operator=(const TemporaryNameWatchdog&) = delete;

  // The name has been renamed away or removed: the child exits without touching it. Idempotent.
  void dismiss();

 private:
  int socket_ = -1;
  int child_ = -1;
};

}  // namespace tessera::io
