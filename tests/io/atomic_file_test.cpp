// Outputs appear whole or not at all; inputs are checked before they are read.
#include "tessera/io/atomic_file.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include "support/scratch_directory.h"
#include "tessera/error.h"
#include "tessera/io/input_file.h"

namespace tessera::io {
namespace {

namespace fs = std::filesystem;

class AtomicFileTest : public test_support::ScratchDirectoryTest {
 protected:
  int entries() const {
    return static_cast<int>(
        std::distance(fs::directory_iterator(directory_), fs::directory_iterator()));
  }
};

TEST_F(AtomicFileTest, NothingAppearsUntilCommit) {
  const std::string out = path("out.bin");
  {
    AtomicFile file(out);
    const auto bytes = file.map(4);
    std::memcpy(bytes.data(), "abcd", 4);
    EXPECT_FALSE(fs::exists(out));
    file.commit();
  }
  EXPECT_EQ(read(out), "abcd");
  EXPECT_EQ(entries(), 1);
}

TEST_F(AtomicFileTest, PageCacheCommitReplacesTheDestinationLikeADurableOne) {
  // Without the fsyncs (convert without --fsync) the rename is the same: an existing file is
  // replaced whole, its permissions kept, and no temporary is left.
  const std::string out = path("out.bin");
  write(out, "old contents, longer than the new");
  fs::permissions(out, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  {
    AtomicFile file(out);
    const auto bytes = file.map(4);
    std::memcpy(bytes.data(), "wxyz", 4);
    file.commit(AtomicFile::Durability::kPageCache);
    EXPECT_EQ(read(out), "wxyz");
  }
  EXPECT_EQ(read(out), "wxyz");
  EXPECT_EQ(fs::status(out).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  EXPECT_EQ(entries(), 1);
}

TEST_F(AtomicFileTest, WithoutCommitTheOldFileStaysAndNoTemporaryIsLeft) {
  const std::string out = path("out.bin");
  write(out, "old");
  {
    AtomicFile file(out);
    file.write("new contents");
  }
  EXPECT_EQ(read(out), "old");
  EXPECT_EQ(entries(), 1);
}

// release_mapped_pages() drops the mapping's pages, start_writeback() sends them to disk while the
// conversion goes on: bytes written before and after, even into a page already being written
// back, all reach the file.
TEST_F(AtomicFileTest, BytesWrittenAroundReleasedPagesAllArrive) {
  const std::string out = path("out.bin");
  constexpr std::size_t kBytes = std::size_t{8} << 20;
  std::string expected(kBytes, 'a');
  {
    AtomicFile file(out);
    auto bytes = file.map(static_cast<int64_t>(kBytes));
    std::memset(bytes.data(), 'a', kBytes / 2);
    file.release_mapped_pages();
    file.start_writeback(0, static_cast<int64_t>(kBytes / 2) + 100);
    std::memset(bytes.data() + kBytes / 2, 'b', kBytes / 2);
    std::memset(expected.data() + kBytes / 2, 'b', kBytes / 2);
    bytes[5] = std::byte{'c'};  // a page of the first half again
    expected[5] = 'c';
    file.release_mapped_pages();
    file.start_writeback(0, static_cast<int64_t>(kBytes));
    EXPECT_FALSE(fs::exists(out));
    file.commit();
  }
  EXPECT_EQ(read(out), expected);
  EXPECT_EQ(entries(), 1);
}

// Where a file system has no O_TMPFILE the temporary is named from the start (Temporary::kNamed
// takes that path on any file system). A SIGKILL, which no handler sees, must still leave nothing
// but the old output: the watchdog child unlinks the name once its parent is gone.
TEST_F(AtomicFileTest, ANamedTemporaryIsRemovedWhenItsProcessIsKilled) {
  const std::string out = path("out.bin");
  write(out, "old");
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    AtomicFile file(out, AtomicFile::Temporary::kNamed);
    std::memset(file.map(1 << 20).data(), 'n', 1 << 20);
    const char byte = 1;
    (void)!::write(ready[1], &byte, 1);
    ::pause();  // killed here, mid-conversion
    ::_exit(1);
  }
  ::close(ready[1]);
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1);
  ::close(ready[0]);
  EXPECT_EQ(entries(), 2);  // out.bin and the hidden temporary: the test takes the named path
  ::kill(child, SIGKILL);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  // The watchdog unlinks asynchronously, within moments of its parent's death.
  for (int tries = 0; tries < 500 && entries() != 1; ++tries)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(entries(), 1);
  EXPECT_EQ(read(out), "old");
}

TEST_F(AtomicFileTest, ANamedTemporaryCommitsOrVanishesLikeAnUnnamedOne) {
  const std::string out = path("out.bin");
  {
    AtomicFile file(out, AtomicFile::Temporary::kNamed);
    file.write("first");
    EXPECT_EQ(entries(), 1);  // only the hidden temporary so far
  }
  EXPECT_EQ(entries(), 0);
  for (const char* contents : {"second", "third"}) {
    AtomicFile file(out, AtomicFile::Temporary::kNamed);
    file.write(contents);
    file.commit(AtomicFile::Durability::kPageCache);
  }
  // The dismissed watchdogs left the committed output alone.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(read(out), "third");
  EXPECT_EQ(entries(), 1);
}

TEST_F(AtomicFileTest, UpdateInPlaceStartsFromTheDestination) {
  const std::string out = path("image.bin");
  write(out, "0123456789");
  {
    AtomicFile file(out);
    const auto bytes = file.map_copy_of_destination(10);
    bytes[3] = std::byte{'x'};
    file.commit();
  }
  EXPECT_EQ(read(out), "012x456789");
}

TEST_F(AtomicFileTest, ThroughASymbolicLinkTheLinkedFileIsReplaced) {
  write(path("target.bin"), "old");
  fs::create_symlink("target.bin", path("link.bin"));
  write_file_atomically(path("link.bin"), "new");
  EXPECT_TRUE(fs::is_symlink(path("link.bin")));
  EXPECT_EQ(read(path("target.bin")), "new");
}

// Regression: a dangling link was replaced by a regular file while a live one was
// followed. One rule now: the file the link names is written, and the link stays.
TEST_F(AtomicFileTest, ThroughADanglingLinkTheNamedFileIsCreated) {
  fs::create_directories(directory_ / "data");
  fs::create_symlink("data/target.bin", path("link.bin"));
  fs::create_symlink("link.bin", path("link2.bin"));  // a chain of links ends at the same file
  write_file_atomically(path("link2.bin"), "new");
  EXPECT_TRUE(fs::is_symlink(path("link.bin")));
  EXPECT_TRUE(fs::is_symlink(path("link2.bin")));
  EXPECT_EQ(read(path("data/target.bin")), "new");
  fs::create_symlink("loop.bin", path("loop.bin"));
  EXPECT_THROW(write_file_atomically(path("loop.bin"), "x"), Error);
}

TEST_F(AtomicFileTest, RefusesDirectoriesAndMissingDirectories) {
  EXPECT_THROW(AtomicFile(directory_.string()), Error);
  EXPECT_THROW(AtomicFile(path("missing/out.bin")), Error);
}

TEST_F(AtomicFileTest, InputFileKnowsItsSizeAndRefusesWhatItCannotSize) {
  const std::string in = path("in.bin");
  write(in, "hello");
  const InputFile file(in);
  EXPECT_EQ(file.size(), 5);
  EXPECT_EQ(std::memcmp(file.bytes().data(), "hello", 5), 0);
  try {
    InputFile zero("/dev/zero");
    FAIL() << "/dev/zero was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
  }
  EXPECT_THROW(InputFile(directory_.string()), Error);
  EXPECT_THROW(InputFile(path("missing.bin")), Error);
}

// Regression: a FIFO without a writer held open() forever; it is refused at once.
TEST_F(AtomicFileTest, InputFileRefusesAFifoWithoutBlocking) {
  const std::string fifo = path("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  try {
    InputFile file(fifo);
    FAIL() << "a FIFO was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot read '" + fifo +
                  "': it is a FIFO (named pipe), not a regular file; tessera reads only files "
                  "whose size it can check first");
  }
}

}  // namespace
}  // namespace tessera::io
