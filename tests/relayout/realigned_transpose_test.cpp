// T(8,128) tiles to and from Fortran-order arrays that start inside a cache line, as NumPy's large
// arrays do (16 bytes in). Out of tiles, the streamed transposes write whole aligned lines, each
// band joining the one before (RealignedBand, portable_transpose.cpp), or go through a stage
// when the columns do not all start the same distance into a line; into tiles, they read whole
// lines, each step shifted back (TileBlock::rows_shift). Every Highway target, whole-element
// offsets into a line from 4 to 60 bytes and one that is not whole elements, 1 and 2 threads, and
// shapes whose pieces split the rows, against the row-major conversion; the bytes around the
// destination must be left alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <span>
#include <vector>

#include "relayout/highway_targets.h"
#include "support/random_bytes.h"
#include "tessera/relayout/relayout_plan.h"
#include "tessera/relayout/strided_array.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::relayout {
namespace {

using Bytes = std::vector<std::byte>;
constexpr std::byte kCanary{0x77};

// A tiled f32 matrix of random values: its Fortran-order bytes and its tiles (made from the
// row-major values by the row-major conversion), and what the tests run both ways.
// Made once per shape (the element loop is slow under the AVX-512 emulator) and shared by every
// thread count and offset.
struct FortranAndTiles {
  const char* text;
  StridedArray fortran_array;
  xla::TiledLayout tiled;
  Bytes fortran, physical;
  RelayoutOptions options;
};

FortranAndTiles fortran_and_tiles(const char* tiled_text) {
  const xla::Shape shape = xla::parse_shape(tiled_text);
  const int64_t rows = shape.dimensions[0];
  const int64_t columns = shape.dimensions[1];
  FortranAndTiles c{
      tiled_text, {{rows, columns}, 32, {4, rows * 4}}, xla::TiledLayout(shape), {}, {}, {}};
  std::mt19937_64 rng(static_cast<uint64_t>(rows * 7919 + columns));
  const Bytes values = test_support::random_bytes(rows * columns * 4, rng);
  c.fortran.resize(values.size());
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < columns; ++j) {
      std::memcpy(c.fortran.data() + (j * rows + i) * 4, values.data() + (i * columns + j) * 4, 4);
    }
  }
  xla::Shape row_major_shape = shape;
  row_major_shape.layout = xla::Layout::descending(2);
  c.options.streaming_bytes = 0;  // stream whatever the size: the paths under test
  c.physical.resize(static_cast<std::size_t>(c.tiled.index_map().size_bytes()));
  plan(xla::TiledLayout(row_major_shape).index_map(), c.tiled.index_map(), c.options)
      .execute(values, c.physical);
  return c;
}

// `bytes` bytes `offset` past a line boundary in `buffer`, which has room for them.
std::span<std::byte> past_a_line(Bytes& buffer, std::size_t offset, std::size_t bytes) {
  const auto line = static_cast<std::size_t>(-reinterpret_cast<uintptr_t>(buffer.data()) % 64);
  return {buffer.data() + line + offset, bytes};
}

RelayoutOptions on_threads(RelayoutOptions options, int threads) {
  options.threads = threads;
  return options;
}

// Tiles -> Fortran order into `offset` bytes past a line boundary; the bytes around it untouched.
void check(const FortranAndTiles& c, int threads, std::size_t offset) {
  const char* tiled_text = c.text;
  const RelayoutPlan back =
      plan(c.tiled.index_map(), c.fortran_array, on_threads(c.options, threads));
  Bytes buffer(c.fortran.size() + 128 + offset, kCanary);
  const std::span<std::byte> destination = past_a_line(buffer, offset, c.fortran.size());
  back.execute(c.physical, destination);
  ASSERT_TRUE(std::equal(destination.begin(), destination.end(), c.fortran.begin()))
      << tiled_text << " threads " << threads << " offset " << offset << ": " << back.describe();
  const auto untouched = [&](const std::byte* from, const std::byte* to) {
    return std::all_of(from, to, [](std::byte b) { return b == kCanary; });
  };
  EXPECT_TRUE(untouched(buffer.data(), destination.data())) << tiled_text << " offset " << offset;
  EXPECT_TRUE(untouched(destination.data() + destination.size(), buffer.data() + buffer.size()))
      << tiled_text << " offset " << offset;
}

TEST(RealignedTranspose, EveryOffsetIntoALineOnEveryTarget) {
  for_each_target([] {
    // One piece of 34 bands; 2048 rows: two pieces of 64 bands, the second thread's piece
    // starting mid-column.
    for (const char* text : {"f32[544,256]{1,0:T(8,128)}", "f32[2048,256]{1,0:T(8,128)}"}) {
      const FortranAndTiles c = fortran_and_tiles(text);
      for (const int threads : {1, 2}) {
        for (const std::size_t offset : {4, 16, 28, 48, 60}) check(c, threads, offset);
      }
    }
  });
}

// Columns that start at different distances into a line (rows not a multiple of 16 floats) and
// offsets that are not whole elements go through the stage; a last band of 8 rows.
TEST(RealignedTranspose, UnevenColumnsAndOddOffsets) {
  for (const char* text : {"f32[1032,256]{1,0:T(8,128)}", "f32[2040,384]{1,0:T(8,128)}"}) {
    const FortranAndTiles c = fortran_and_tiles(text);
    for (const int threads : {1, 2}) {
      for (const std::size_t offset : {0, 1, 6, 16, 48}) check(c, threads, offset);
    }
  }
}

// Fortran order `offset` bytes past a line boundary -> tiles.
void check_into_tiles(const FortranAndTiles& c, int threads, std::size_t offset) {
  const char* tiled_text = c.text;
  Bytes buffer(c.fortran.size() + 64 + offset);
  const std::span<std::byte> fortran = past_a_line(buffer, offset, c.fortran.size());
  std::copy(c.fortran.begin(), c.fortran.end(), fortran.begin());
  const RelayoutPlan in =
      plan(c.fortran_array, c.tiled.index_map(), on_threads(c.options, threads));
  Bytes got(c.physical.size(), kCanary);
  in.execute(fortran, got);
  ASSERT_EQ(got, c.physical) << tiled_text << " threads " << threads << " offset " << offset << ": "
                             << in.describe();
}

TEST(RealignedTranspose, SourcesStartingAnywhereInALineOnEveryTarget) {
  for_each_target([] {
    // 16, 48 and 2048 rows: one step, three, many; 40 rows: an 8-row tile row cut off.
    for (const char* text : {"f32[16,256]{1,0:T(8,128)}", "f32[48,384]{1,0:T(8,128)}",
                             "f32[2048,256]{1,0:T(8,128)}", "f32[40,256]{1,0:T(8,128)}"}) {
      const FortranAndTiles c = fortran_and_tiles(text);
      for (const int threads : {1, 2}) {
        for (const std::size_t offset : {0, 4, 6, 16, 44, 60}) {
          check_into_tiles(c, threads, offset);
        }
      }
    }
  });
}

}  // namespace
}  // namespace tessera::relayout
