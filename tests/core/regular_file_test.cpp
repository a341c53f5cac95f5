// The one reader of input files (tessera/regular_file.h).
#include "tessera/regular_file.h"

#include <gtest/gtest.h>

#include <string>

#include "tessera/error.h"

namespace tessera {
namespace {

// Files of /proc say they hold 0 bytes; `explain /proc/self/status` read as empty.
TEST(RegularFile, ReadsFilesThatDoNotKnowTheirSize) {
  const std::string status = read_regular_file("/proc/self/status", 1 << 20);
  EXPECT_NE(status.find("Name:"), std::string::npos) << status;
  try {
    read_regular_file("/proc/self/status", 16);
    FAIL() << "more than the bound was read";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kOutOfRange);
    EXPECT_NE(e.message().find("holds more than 16 bytes"), std::string::npos) << e.message();
  }
}

}  // namespace
}  // namespace tessera
