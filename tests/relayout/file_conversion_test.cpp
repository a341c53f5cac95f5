// A file conversion writes what a plan over the same layouts writes, round-trips through .npy
// files, and refuses bad files before OUT is touched.
#include "tessera/relayout/file_conversion.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "support/scratch_directory.h"
#include "tessera/error.h"
#include "tessera/relayout/npy_file.h"
#include "tessera/tpu/target.h"

namespace tessera::relayout {
namespace {

namespace fs = std::filesystem;

class FileConversionTest : public test_support::ScratchDirectoryTest {
 protected:
  // A .npy file of f32[rows, cols] holding random values; returns its data bytes.
  static std::string write_npy(const std::string& p, int64_t rows, int64_t cols, uint32_t seed) {
    std::mt19937 random(seed);
    std::string data(static_cast<std::size_t>(rows * cols * 4), '\0');
    for (char& c : data) c = static_cast<char>(random());
    write(p, npy_header("<f4", {rows, cols}) + data);
    return data;
  }
};

TEST_F(FileConversionTest, NpyToTiledAndBackIsTheSameArray) {
  const std::string data = write_npy(path("x.npy"), 13, 300, 7);
  FileConversionOptions options;
  options.to = "f32[13,300]{1,0:T(8,128)}";
  FileConversion to_tiles(path("x.npy"), path("x.tpu"), options);
  EXPECT_EQ(to_tiles.source().text, "f32[13,300]{1,0}");
  EXPECT_EQ(to_tiles.output_bytes(), 16 * 384 * 4);  // two tile rows by three tile columns
  EXPECT_FALSE(to_tiles.npy_output());
  int64_t last_done = -1;
  to_tiles.write([&](int64_t done, int64_t total) {
    EXPECT_GE(done, last_done);
    EXPECT_EQ(total, 16 * 384 * 4);
    last_done = done;
  });
  EXPECT_EQ(last_done, 16 * 384 * 4);
  const std::string tiled = read(path("x.tpu"));
  ASSERT_EQ(tiled.size(), 16u * 384 * 4);
  // Element (9, 130) is in tile (1, 1): tile row 1 starts after three tiles of 8x128.
  const std::size_t at = (3 * 8 * 128 + 1 * 8 * 128 + 1 * 128 + 2) * 4;
  EXPECT_EQ(tiled.substr(at, 4), data.substr((9 * 300 + 130) * 4, 4));

  FileConversionOptions back;
  back.from = options.to;
  FileConversion from_tiles(path("x.tpu"), path("y.npy"), back);
  from_tiles.write();
  EXPECT_EQ(read(path("y.npy")), read(path("x.npy")));
}

TEST_F(FileConversionTest, ATargetTilesAShapeWrittenWithoutTiles) {
  write_npy(path("x.npy"), 8, 128, 1);
  FileConversionOptions options;
  options.to = "f32[8,128]{1,0}";
  options.target = tpu::parse_tpu_target("tpu-v5e");
  FileConversion conversion(path("x.npy"), path("x.tpu"), options);
  EXPECT_EQ(conversion.destination().text, "f32[8,128]{1,0:T(8,128)}");
}

TEST_F(FileConversionTest, RefusesAnInputOfTheWrongSizeNamingIt) {
  write(path("short.raw"), std::string(99, '\0'));
  FileConversionOptions options;
  options.from = "f32[5,5]{1,0}";
  options.to = "f32[5,5]{0,1}";
  try {
    FileConversion(path("short.raw"), path("out.raw"), options);
    FAIL() << "a 99-byte file converted as f32[5,5]";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBufferSize);
    EXPECT_NE(std::string(e.what()).find("short.raw' holds 99 bytes of data but"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(fs::exists(path("out.raw")));
}

TEST_F(FileConversionTest, RefusesLayoutsOfDifferentArrays) {
  write(path("in.raw"), std::string(100, '\0'));
  FileConversionOptions options;
  options.from = "f32[5,5]{1,0}";
  options.to = "s32[5,5]{1,0}";
  EXPECT_THROW(FileConversion(path("in.raw"), path("out.raw"), options), Error);
  options.to = "";
  EXPECT_THROW(FileConversion(path("in.raw"), path("out.raw"), options), Error);  // raw: needs it
}

TEST_F(FileConversionTest, AnNpuImageOfAnotherDeviceIsNotReplaced) {
  write(path("in.raw"), std::string(2 * 3 * 4 * 5 * 4, '\1'));
  write(path("image.bin"), "another device's local memory");
  FileConversionOptions options;
  options.from = "f32[2,3,4,5]{3,2,1,0}";
  options.to = "npu:npus=4,lmem=1024,align=128:2,3,4,5:f32:0";
  FileConversion conversion(path("in.raw"), path("image.bin"), options);
  EXPECT_THROW(conversion.write(), Error);
  EXPECT_EQ(read(path("image.bin")), "another device's local memory");
  options.overwrite = true;
  FileConversion replacing(path("in.raw"), path("image.bin"), options);
  replacing.write();
  EXPECT_EQ(static_cast<int64_t>(fs::file_size(path("image.bin"))), 4 * 1024);
}

TEST_F(FileConversionTest, IsWrittenOnce) {
  write_npy(path("x.npy"), 2, 2, 3);
  FileConversionOptions options;
  options.to = "f32[2,2]{0,1}";
  FileConversion conversion(path("x.npy"), path("x.raw"), options);
  conversion.write();
  EXPECT_THROW(conversion.write(), Error);
}

}  // namespace
}  // namespace tessera::relayout
