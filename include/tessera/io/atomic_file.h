// Files that appear complete or not at all: an output is written into an unnamed
// temporary file in the destination's directory (O_TMPFILE; a hidden ".NAME.tessera-*" file where
// the file system lacks it), flushed with fsync (unless the caller settles for the page cache)
// and renamed over the destination only on commit(). A failed, killed (even `kill -9`) or
// interrupted run leaves the destination as it was, and no temporary beside it: the kernel drops an
// unnamed file when its process dies; a named fallback is removed by the destructor, on
// SIGINT/SIGTERM/SIGHUP by remove_temporary_files_on_signals()'s handler, and after a SIGKILL by a
// TemporaryNameWatchdog (a child process that outlives its parent only to unlink the name).
//
//   io::AtomicFile out("weights.tiled");
//   std::span<std::byte> bytes = out.map(1 << 30);  // 1 GiB, space reserved (ENOSPC here)
//   plan.execute(input, bytes);
//   out.commit();                                  // weights.tiled now holds the new bytes
//
// An NPU image updated in place: `AtomicFile out(path); out.map_copy_of_destination(size)`
// starts from the destination's current bytes, so other tensors in the image survive.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "tessera/io/temporary_name_watchdog.h"

namespace tessera::io {

class AtomicFile {
 public:
  // kUnnamedWherePossible: O_TMPFILE, a hidden name only where the file system lacks it. kNamed:
  // the hidden name from the start (the fallback's path, for tests on any file system).
  enum class Temporary { kUnnamedWherePossible, kNamed };
  // Creates the temporary file beside `destination`. Throws Error(kIo) saying why it cannot.
  explicit AtomicFile(std::string destination,
                      Temporary temporary = Temporary::kUnnamedWherePossible);
  ~AtomicFile();  // without commit(): discards everything, the destination is untouched
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Sizes the temporary file to `bytes` zero bytes, reserves the disk space (so a full disk is an
  // Error(kIo) here, not a SIGBUS while writing) and maps it for writing.
  std::span<std::byte> map(int64_t bytes);
  // Like map(), starting from a copy of the destination's current bytes (which must be `bytes`).
  std::span<std::byte> map_copy_of_destination(int64_t bytes);
  // Unmaps the mapped pages from this process (their bytes stay in the page cache, dirty ones
  // still to be written): keeps the resident set bounded while a large file is written in pieces.
  void release_mapped_pages();
  // Starts writing the file's bytes [begin, end) to disk, whole pages, without waiting: for bytes
  // that will not change again (RelayoutPlan::destination_settled_bytes), so that under a memory
  // limit smaller than the file their pages can be dropped instead of waited on. Writing to them
  // afterwards is still correct, only slower (they are written again).
  void start_writeback(int64_t begin, int64_t end);
  // Appends bytes to an unmapped file (small documents: pictures, reports).
  void write(std::string_view bytes);
  // Renames the file over the destination (keeping an existing destination's permissions).
  // kOnDisk first waits until the file's bytes are on disk (fsync) and then makes the rename
  // durable (fsync of the directory): the output survives a power loss. kPageCache leaves the
  // bytes to the kernel's writeback, as cp and dd do: an interrupted or failed run still never
  // leaves a partial destination, but a power loss soon after may.
  enum class Durability { kOnDisk, kPageCache };
  void commit(Durability durability = Durability::kOnDisk);

  const std::string& destination() const { return destination_; }

 private:
  std::string destination_;
  std::string named_temporary_;  // empty while the file is unnamed (O_TMPFILE)
  int descriptor_ = -1;
  int signal_slot_ = -1;
  TemporaryNameWatchdog watchdog_;  // for a name given at creation, which a SIGKILL would leave
  std::byte* mapping_ = nullptr;
  std::size_t mapped_bytes_ = 0;
  bool committed_ = false;
};

// Writes `bytes` to `path` through an AtomicFile.
void write_file_atomically(const std::string& path, std::string_view bytes);

// Installs handlers for SIGINT, SIGTERM and SIGHUP that remove live named temporary files, then
// end the process with the signal's default action (exit status 128+signal). Idempotent.
void remove_temporary_files_on_signals();

}  // namespace tessera::io
