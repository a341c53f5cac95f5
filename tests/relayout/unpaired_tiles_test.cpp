// T(8,128) <-> Fortran order where the tile rows cannot all be paired into 16x16 SIMD tiles (an
// odd number of 8-row tile rows): the plan cuts the last tile row off into a box of its own
// (split_off_unpaired_tiles, copy_kernels.cpp), so that the rest is one grouped transpose instead
// of an 8-row one (7 and 10 GB/s for f32[8200,8192] before). Both directions, 1 and 2 threads,
// against the row-major conversion.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "support/random_bytes.h"
#include "tessera/relayout/relayout_plan.h"
#include "tessera/relayout/strided_array.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::relayout {
namespace {

using Bytes = std::vector<std::byte>;

// The plan's first box is a transpose of 8-row tiles grouped in pairs into 16x16 SIMD tiles (axes
// 16 x 8 x 1 x 2 one way, 8 x 16 x 2 x 1 the other), not an 8-row transpose ([8x128x...]).
bool grouped_first(const RelayoutPlan& p) {
  static const std::regex grouped(R"(^transpose \d+ axes \[(16x8x1x2|8x16x2x1)x)");
  return std::regex_search(p.describe(), grouped);
}

TEST(UnpairedTiles, OddTileRowsStillGroupAndConvertExactly) {
  std::mt19937_64 rng(11);
  for (const char* text : {"f32[520,256]{1,0:T(8,128)}", "f32[1032,384]{1,0:T(8,128)}",
                           "f32[24,512]{1,0:T(8,128)}", "f32[2056,640]{1,0:T(8,128)}"}) {
    const xla::Shape shape = xla::parse_shape(text);
    const xla::TiledLayout tiled(shape);
    const int64_t rows = shape.dimensions[0];
    const int64_t columns = shape.dimensions[1];
    const Bytes values = test_support::random_bytes(rows * columns * 4, rng);
    Bytes fortran(values.size());
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < columns; ++j) {
        std::memcpy(fortran.data() + (j * rows + i) * 4, values.data() + (i * columns + j) * 4, 4);
      }
    }
    xla::Shape row_major_shape = shape;
    row_major_shape.layout = xla::Layout::descending(2);
    const StridedArray fortran_array{{rows, columns}, 32, {4, rows * 4}};
    for (const int threads : {1, 2}) {
      RelayoutOptions options;
      options.threads = threads;
      options.streaming_bytes = 0;
      Bytes physical(static_cast<std::size_t>(tiled.index_map().size_bytes()));
      plan(xla::TiledLayout(row_major_shape).index_map(), tiled.index_map(), options)
          .execute(values, physical);

      const RelayoutPlan in = plan(fortran_array, tiled.index_map(), options);
      EXPECT_TRUE(grouped_first(in)) << text << ": " << in.describe();
      Bytes got(physical.size(), std::byte{0x55});
      in.execute(fortran, got);
      EXPECT_EQ(got, physical) << text << " threads " << threads << ": " << in.describe();

      const RelayoutPlan out = plan(tiled.index_map(), fortran_array, options);
      EXPECT_TRUE(grouped_first(out)) << text << ": " << out.describe();
      Bytes back(fortran.size(), std::byte{0x55});
      out.execute(physical, back);
      EXPECT_EQ(back, fortran) << text << " threads " << threads << ": " << out.describe();
    }
  }
}

}  // namespace
}  // namespace tessera::relayout
