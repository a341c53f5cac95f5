#include "tessera/io/atomic_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>

#include "tessera/error.h"

namespace tessera::io {
namespace {

// Named temporary files a signal handler must remove. The handler may only use async-signal-safe
// calls (unlink, signal, raise), so the paths live in fixed arrays, published by an atomic state.
constexpr int kSlots = 16;
constexpr std::size_t kPathBytes = 4096;
enum SlotState : int { kFree = 0, kFilling = 1, kLive = 2 };
std::atomic<int> slot_state[kSlots];
char slot_path[kSlots][kPathBytes];

int claim_slot(const std::string& path) {
  if (path.size() >= kPathBytes) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (slot_state[i].compare_exchange_strong(expected, kFilling)) {
      std::memcpy(slot_path[i], path.c_str(), path.size() + 1);
      slot_state[i].store(kLive);
      return i;
    }
  }
  return -1;  // more live outputs than slots: only the destructor removes this one
}

void release_slot(int slot) {
  if (slot >= 0) slot_state[slot].store(kFree);
}

extern "C" void remove_temporaries_and_die(int signal_number) {
  for (int i = 0; i < kSlots; ++i) {
    if (slot_state[i].load() == kLive) ::unlink(slot_path[i]);
  }
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw Error(ErrorKind::kIo, fmt::format("cannot write '{}': {}", path, why));
}

std::string directory_of(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

std::string hidden_name(const std::string& path, int attempt) {
  const std::filesystem::path p(path);
  return (p.parent_path() / fmt::format(".{}.tessera-{}-{}", p.filename().string(),
                                        static_cast<long>(::getpid()), attempt))
      .string();
}

mode_t permissions_for(const std::string& destination) {
  struct stat existing {};
  if (::stat(destination.c_str(), &existing) == 0) return existing.st_mode & 07777;
  const mode_t mask = ::umask(0);  // umask can only be read by setting it
  ::umask(mask);
  return 0666 & ~mask;
}

// Copies all of `from` into `to` at offset 0, in the kernel where it can.
void copy_contents(int from, int to, int64_t bytes, const std::string& path) {
  loff_t in = 0;
  loff_t out = 0;
  while (in < bytes) {
    const ssize_t n =
        ::copy_file_range(from, &in, to, &out, static_cast<std::size_t>(bytes - in), 0);
    if (n > 0) continue;
    if (n == 0) fail(path, "it shrank while being copied");
    if (errno == EINTR) continue;
    if (errno != EXDEV && errno != ENOSYS && errno != EINVAL && errno != EOPNOTSUPP)
      fail(path, std::strerror(errno));
    char buffer[1 << 16];
    while (in < bytes) {
      const ssize_t got = ::pread(from, buffer, sizeof buffer, in);
      if (got <= 0) fail(path, got == 0 ? "it shrank while being copied" : std::strerror(errno));
      for (ssize_t done = 0; done < got;) {
        const ssize_t put = ::pwrite(to, buffer + done, static_cast<std::size_t>(got - done), out);
        if (put < 0) fail(path, std::strerror(errno));
        done += put;
        out += put;
      }
      in += got;
    }
  }
}

// The file a chain of symbolic links ends at, whether it exists or not: through a link tessera
// replaces the file the link names and keeps the link, as the shell's `>` writes through one.
// A live link was once followed and a dangling one replaced by a regular file
// (tests/io/atomic_file_test.cpp).
std::string file_named_by(std::string path) {
  constexpr int kMaxLinks = 40;  // Linux's own limit on links followed in one path lookup
  for (int links = 0; links < kMaxLinks; ++links) {
    std::error_code error;
    if (!std::filesystem::is_symlink(path, error)) return path;
    const std::filesystem::path target = std::filesystem::read_symlink(path, error);
    if (error) fail(path, error.message());
    path = target.is_absolute() ? target.string()
                                : (std::filesystem::path(path).parent_path() / target).string();
  }
  fail(path, "too many levels of symbolic links");
}

}  // namespace

AtomicFile::AtomicFile(std::string destination, Temporary temporary)
    : destination_(std::move(destination)) {
  destination_ = file_named_by(destination_);
  struct stat existing {};
  if (::stat(destination_.c_str(), &existing) == 0) {
    if (S_ISDIR(existing.st_mode)) fail(destination_, "it is a directory");
    if (!S_ISREG(existing.st_mode))
      fail(destination_, "not a regular file (an output is replaced whole, only on success)");
  }
  const std::string directory = directory_of(destination_);
  if (temporary == Temporary::kUnnamedWherePossible) {
    descriptor_ = ::open(directory.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (descriptor_ >= 0) return;
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
      fail(destination_, std::strerror(errno));
  }
  for (int attempt = 0; descriptor_ < 0; ++attempt) {
    named_temporary_ = hidden_name(destination_, attempt);
    descriptor_ = ::open(named_temporary_.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
    if (descriptor_ < 0 && (errno != EEXIST || attempt > 100))
      fail(destination_, std::strerror(errno));
  }
  signal_slot_ = claim_slot(named_temporary_);
  watchdog_ = TemporaryNameWatchdog(named_temporary_);
}

AtomicFile::~AtomicFile() {
  if (mapping_ != nullptr) ::munmap(mapping_, mapped_bytes_);
  if (descriptor_ >= 0) ::close(descriptor_);
  if (!committed_ && !named_temporary_.empty()) ::unlink(named_temporary_.c_str());
  release_slot(signal_slot_);
}  // then watchdog_'s destructor dismisses it, after the unlink above

std::span<std::byte> AtomicFile::map(int64_t bytes) {
  if (::ftruncate(descriptor_, static_cast<off_t>(bytes)) != 0)
    fail(destination_, std::strerror(errno));
  if (bytes == 0) return {};
  // Reserve the blocks now: a store into a mapped hole on a full disk would be a SIGBUS.
  const int reserved = ::posix_fallocate(descriptor_, 0, static_cast<off_t>(bytes));
  if (reserved != 0 && reserved != EOPNOTSUPP && reserved != EINVAL) {
    fail(destination_, fmt::format("{} (it needs {} bytes)", std::strerror(reserved), bytes));
  }
  void* address = ::mmap(nullptr, static_cast<std::size_t>(bytes), PROT_READ | PROT_WRITE,
                         MAP_SHARED, descriptor_, 0);
  if (address == MAP_FAILED) fail(destination_, std::strerror(errno));
  ::madvise(address, static_cast<std::size_t>(bytes), MADV_SEQUENTIAL);
  // Large page-cache folios for the new file (ext4 has them since Linux 6.16): 1 fault per ~2 MiB
  // instead of per 4-64 KiB, and faults were a visible share of a file conversion
  // (docs/notes/2026-11-24-output-page-cache-folios.md). Kernels without it ignore the advice.
  ::madvise(address, static_cast<std::size_t>(bytes), MADV_HUGEPAGE);
  mapping_ = static_cast<std::byte*>(address);
  mapped_bytes_ = static_cast<std::size_t>(bytes);
  return {mapping_, mapped_bytes_};
}

std::span<std::byte> AtomicFile::map_copy_of_destination(int64_t bytes) {
  const int source = ::open(destination_.c_str(), O_RDONLY | O_CLOEXEC);
  if (source < 0) fail(destination_, std::strerror(errno));
  try {
    copy_contents(source, descriptor_, bytes, destination_);
  } catch (...) {
    ::close(source);
    throw;
  }
  ::close(source);
  return map(bytes);
}

void AtomicFile::release_mapped_pages() {
  // For a shared file mapping MADV_DONTNEED only drops this process's page table entries; the
  // pages' dirty bits move to the page cache.
  if (mapping_ != nullptr) ::madvise(mapping_, mapped_bytes_, MADV_DONTNEED);
}

void AtomicFile::start_writeback(int64_t begin, int64_t end) {
  // Whole pages only: a page the range ends inside may still be written.
  static const int64_t page = ::sysconf(_SC_PAGESIZE);
  end -= end % page;
  if (end <= begin) return;
  // Under a memory cgroup limit smaller than the file, reclaim cannot write file pages itself: it
  // waits on dirty ones until the flusher gets to them (global dirty thresholds, far above a
  // small limit), while written-back clean pages are dropped at once. Unlimited, the writing
  // overlaps the conversion instead of all waiting for commit()'s fsync
  // (docs/notes/2026-11-23-larger-than-memory.md).
  ::sync_file_range(descriptor_, begin, end - begin, SYNC_FILE_RANGE_WRITE);
}

void AtomicFile::write(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(descriptor_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(destination_, std::strerror(errno));
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

void AtomicFile::commit(Durability durability) {
  if (mapping_ != nullptr) {
    ::munmap(mapping_, mapped_bytes_);
    mapping_ = nullptr;
  }
  const bool on_disk = durability == Durability::kOnDisk;
  if (::fchmod(descriptor_, permissions_for(destination_)) != 0 ||
      (on_disk && ::fsync(descriptor_) != 0))
    fail(destination_, std::strerror(errno));
  if (named_temporary_.empty()) {
    // Give the unnamed file a hidden name beside the destination, then rename that over it
    // (linkat cannot replace an existing name). A SIGKILL in the microseconds between the two
    // would leave the name; a watchdog for that window would cost a fork per output.
    const std::string self = fmt::format("/proc/self/fd/{}", descriptor_);
    for (int attempt = 0;; ++attempt) {
      named_temporary_ = hidden_name(destination_, attempt);
      if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, named_temporary_.c_str(), AT_SYMLINK_FOLLOW) ==
          0)
        break;
      if (errno != EEXIST || attempt > 100) {
        named_temporary_.clear();
        fail(destination_, std::strerror(errno));
      }
    }
    signal_slot_ = claim_slot(named_temporary_);
  }
  if (::rename(named_temporary_.c_str(), destination_.c_str()) != 0)
    fail(destination_, std::strerror(errno));
  committed_ = true;
  watchdog_.dismiss();
  if (!on_disk) return;
  // Make the rename itself durable.
  const int directory =
      ::open(directory_of(destination_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (directory >= 0) {
    ::fsync(directory);
    ::close(directory);
  }
}

void write_file_atomically(const std::string& path, std::string_view bytes) {
  AtomicFile file(path);
  file.write(bytes);
  file.commit();
}

void remove_temporary_files_on_signals() {
  static const bool installed = [] {
    struct sigaction action {};
    action.sa_handler = remove_temporaries_and_die;
    sigemptyset(&action.sa_mask);
    for (int s : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(s, &action, nullptr);
    return true;
  }();
  (void)installed;
}

}  // namespace tessera::io
