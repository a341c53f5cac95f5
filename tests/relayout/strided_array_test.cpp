// Strided arrays (NumPy's byte strides) as a side of a relayout plan: the engine reads and writes
// Fortran-order, transposed, stepped, reversed and broadcast views in place, with the bytes a
// row-major copy of the view would give, and refuses destinations that cannot hold every element.
#include "tessera/relayout/strided_array.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "support/random_bytes.h"
#include "support/random_layouts.h"
#include "tessera/error.h"
#include "tessera/relayout/relayout_plan.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::relayout {
namespace {

using Bytes = std::vector<std::byte>;

using test_support::random_bytes;

TEST(StridedArray, FootprintsOfTheHeaderExamples) {
  const auto footprint = [](StridedArray a) {
    const StridedFootprint f = check_strided_array(a, StridedUse::kSource);
    return std::pair{f.first_element, f.size_bytes};
  };
  EXPECT_EQ(footprint({{3, 5}, 32, {4, 12}}), (std::pair<int64_t, int64_t>{0, 60}));
  EXPECT_EQ(footprint({{3, 5}, 32, {20, -4}}), (std::pair<int64_t, int64_t>{16, 60}));
  EXPECT_EQ(footprint({{3, 5}, 32, {40, 4}}), (std::pair<int64_t, int64_t>{0, 100}));
  EXPECT_EQ(footprint({{3, 5}, 32, {0, 4}}), (std::pair<int64_t, int64_t>{0, 20}));
  EXPECT_EQ(footprint({{3, 0}, 32, {-20, 4}}), (std::pair<int64_t, int64_t>{0, 0}));
  EXPECT_EQ(footprint({{}, 64, {}}), (std::pair<int64_t, int64_t>{0, 8}));
}

std::string refusal(StridedArray a, StridedUse use) {
  try {
    check_strided_array(a, use);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kArgument);
    return e.message();
  }
  return "accepted";
}

TEST(StridedArray, RefusesWhatCannotBeAddressedOrWritten) {
  EXPECT_EQ(refusal({{3, 5}, 32, {0, 4}}, StridedUse::kDestination),
            "dimension 0 of the strided destination has stride 0 (a broadcast view): its 3 "
            "elements would share the same bytes; give an array that holds every element once");
  EXPECT_EQ(refusal({{4, 3}, 8, {2, 1}}, StridedUse::kDestination),
            "dimension 0 of the strided destination has a stride of 2 bytes, inside the 3 bytes "
            "its smaller strides span: elements would overlap; give an array that holds every "
            "element once");
  EXPECT_EQ(refusal({{4, 3}, 32, {6, 12}}, StridedUse::kSource),
            "dimension 0 of the strided source has a stride of 6 bytes, not a multiple of its "
            "4-byte elements");
  EXPECT_EQ(refusal({{4}, 4, {1}}, StridedUse::kSource),
            "the strided source's elements are 4 bits: strides address whole bytes, so elements "
            "must be whole bytes");
  EXPECT_EQ(refusal({{4, 3}, 8, {3}}, StridedUse::kSource),
            "the strided source has 2 dimensions but 1 strides");
  EXPECT_EQ(refusal({{-1}, 8, {1}}, StridedUse::kSource),
            "dimension 0 of the strided source has negative size -1");
  // Overlapping sources are fine (sliding windows, broadcasts); so are size-1 dims of stride 0.
  EXPECT_EQ(refusal({{4, 3}, 8, {2, 1}}, StridedUse::kSource), "accepted");
  EXPECT_EQ(refusal({{1, 3}, 8, {0, -1}}, StridedUse::kDestination), "accepted");
  EXPECT_THROW(
      check_strided_array({{int64_t{1} << 40, 3}, 8, {int64_t{1} << 40, 1}}, StridedUse::kSource),
      Error);
}

TEST(StridedArray, PlanRefusesABroadcastDestinationInTheSameWords) {
  const xla::TiledLayout tiled(xla::parse_shape("f32[3,5]{1,0:T(2,2)}"));
  try {
    plan(tiled.index_map(), StridedArray{{3, 5}, 32, {0, 4}}, {});
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), refusal({{3, 5}, 32, {0, 4}}, StridedUse::kDestination));
  }
}

// A random strided view of a shape's logical array: every dimension stepped by 1-3 elements,
// possibly reversed, in a random memory order, and (sources only) sometimes broadcast.
struct View {
  StridedArray array;
  StridedFootprint footprint;
};

View random_view(const std::vector<int64_t>& dims, int element_bits, bool broadcast,
                 std::mt19937_64& rng) {
  const auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  std::vector<std::size_t> order(dims.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::shuffle(order.begin(), order.end(), rng);
  StridedArray a{dims, element_bits, std::vector<int64_t>(dims.size(), 0)};
  int64_t step = element_bits / 8 * uniform(1, 2);
  for (std::size_t i : order) {
    const int64_t dimension_step = uniform(1, 3);
    a.byte_strides[i] = step * dimension_step * (uniform(0, 1) == 0 ? -1 : 1);
    if (broadcast && uniform(0, 3) == 0) a.byte_strides[i] = 0;
    step *= dimension_step * std::max<int64_t>(1, dims[i]) + uniform(0, 1);
  }
  const StridedUse use = broadcast ? StridedUse::kSource : StridedUse::kDestination;
  return {a, check_strided_array(a, use)};
}

int64_t byte_of(const View& v, std::span<const int64_t> index) {
  int64_t at = v.footprint.first_element;
  for (std::size_t i = 0; i < index.size(); ++i) at += index[i] * v.array.byte_strides[i];
  return at;
}

// For random tiled layouts and random views: reading the view gives what reading its row-major
// copy gives, and writing the view puts each element where the view has it and nothing else.
TEST(StridedArray, ViewsConvertLikeTheirRowMajorCopies) {
  std::mt19937_64 rng(2026);
  test_support::RandomLayoutOptions options;
  options.allow_combine = false;
  for (int round = 0; round < 300; ++round) {
    const xla::Shape shape = test_support::random_shape(rng, options);
    xla::Shape row_major_shape = shape;
    row_major_shape.layout = xla::Layout::descending(static_cast<int>(shape.dimensions.size()));
    const xla::TiledLayout tiled(shape);
    const xla::TiledLayout row_major(row_major_shape);
    const IndexMap& rows = row_major.index_map();
    const int bits = rows.element_bits();
    const int64_t bytes = bits / 8;
    RelayoutOptions chosen;
    chosen.threads = static_cast<int>(round % 2 + 1);
    chosen.fill_bits = 0x3c;

    const View source = random_view(rows.dims(), bits, true, rng);
    const Bytes strided = random_bytes(source.footprint.size_bytes, rng);
    Bytes copy(static_cast<std::size_t>(rows.size_bytes()));
    for (LogicalWalker w(rows); !w.done(); w.next()) {
      std::memcpy(copy.data() + w.offset() * bytes, strided.data() + byte_of(source, w.index()),
                  static_cast<std::size_t>(bytes));
    }
    Bytes expected(static_cast<std::size_t>(tiled.index_map().size_bytes()));
    plan(rows, tiled.index_map(), chosen).execute(copy, expected);
    Bytes got(expected.size(), std::byte{0x77});
    plan(source.array, tiled.index_map(), chosen).execute(strided, got);
    ASSERT_EQ(got, expected) << xla::print_shape(shape) << " round " << round;

    const View destination = random_view(rows.dims(), bits, false, rng);
    Bytes back(static_cast<std::size_t>(rows.size_bytes()));
    plan(tiled.index_map(), rows, chosen).execute(expected, back);
    const Bytes before = random_bytes(destination.footprint.size_bytes, rng);
    Bytes written = before;
    plan(tiled.index_map(), destination.array, chosen).execute(expected, written);
    Bytes want = before;
    for (LogicalWalker w(rows); !w.done(); w.next()) {
      std::memcpy(want.data() + byte_of(destination, w.index()), back.data() + w.offset() * bytes,
                  static_cast<std::size_t>(bytes));
    }
    ASSERT_EQ(written, want) << xla::print_shape(shape) << " round " << round;
  }
}

// Fortran order to T(8,128) is one pass of transposes, not an element loop.
TEST(StridedArray, FortranOrderToTilesTransposes) {
  const xla::TiledLayout tiled(xla::parse_shape("f32[256,512]{1,0:T(8,128)}"));
  const RelayoutPlan p = plan(StridedArray{{256, 512}, 32, {4, 1024}}, tiled.index_map(), {});
  // 16 rows by 8 columns, two strips to a 16x16 SIMD tile; not 128x8 tiles of scalar copies.
  EXPECT_TRUE(p.describe().starts_with("transpose 7 axes [16x8x1x2x")) << p.describe();
  EXPECT_EQ(p.describe().find("strided"), std::string::npos) << p.describe();
  const RelayoutPlan back = plan(tiled.index_map(), StridedArray{{256, 512}, 32, {4, 1024}}, {});
  EXPECT_TRUE(back.describe().starts_with("transpose 7 axes [8x16x2x1x")) << back.describe();
  // 16 MiB either way is split into pieces that threads can share (one piece ran on one thread).
  const xla::TiledLayout large(xla::parse_shape("f32[2048,2048]{1,0:T(8,128)}"));
  const StridedArray fortran{{2048, 2048}, 32, {4, 2048 * 4}};
  EXPECT_GE(plan(fortran, large.index_map(), {}).piece_count(), 4);
  EXPECT_GE(plan(large.index_map(), fortran, {}).piece_count(), 2);
}

// Fortran order into tiles whose rows hold 8, 3 and 16 strips of 16 columns and back: the
// transposes go through them in chunks of the variant's band rows (2 strips on
// AVX-512 hosts, 8 on AVX2 ones), so whole chunks, a last partial chunk and several chunks per
// tile row all occur; f32[1024,1024] (4 MiB) is split into pieces on the way in.
TEST(StridedArray, FortranOrderToAndFromTilesMatchesTheRowMajorConversion) {
  std::mt19937_64 rng(7);
  for (const char* text :
       {"f32[64,512]{1,0:T(8,128)}", "f32[48,480]{1,0:T(8,48)}", "f32[32,768]{1,0:T(8,256)}",
        "f32[40,300]{1,0:T(8,128)}", "f32[1024,1024]{1,0:T(8,128)}"}) {
    const xla::Shape shape = xla::parse_shape(text);
    const xla::TiledLayout tiled(shape);
    xla::Shape row_major_shape = shape;
    row_major_shape.layout = xla::Layout::descending(2);
    const xla::TiledLayout row_major(row_major_shape);
    const int64_t rows = shape.dimensions[0];
    const int64_t columns = shape.dimensions[1];
    const Bytes values = random_bytes(rows * columns * 4, rng);
    Bytes fortran(values.size());
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < columns; ++j) {
        std::memcpy(fortran.data() + (j * rows + i) * 4, values.data() + (i * columns + j) * 4, 4);
      }
    }
    const StridedArray fortran_array{{rows, columns}, 32, {4, rows * 4}};
    for (int threads : {1, 2}) {
      RelayoutOptions options;
      options.threads = threads;
      Bytes expected(static_cast<std::size_t>(tiled.index_map().size_bytes()));
      plan(row_major.index_map(), tiled.index_map(), options).execute(values, expected);
      Bytes got(expected.size(), std::byte{0x77});
      const RelayoutPlan to = plan(fortran_array, tiled.index_map(), options);
      to.execute(fortran, got);
      EXPECT_EQ(got, expected) << text << " threads " << threads << ": " << to.describe();
      // Also into destinations that start 4-48 bytes into a line, as NumPy's large arrays do
      // (16 bytes): the streamed transposes then go through a stage (portable_transpose.cpp).
      const RelayoutPlan from = plan(tiled.index_map(), fortran_array, options);
      for (const std::size_t offset : {0, 4, 16, 48}) {
        Bytes buffer(fortran.size() + 64 + offset, std::byte{0x77});
        const auto line =
            static_cast<std::size_t>(-reinterpret_cast<uintptr_t>(buffer.data()) % 64);
        const std::span<std::byte> back(buffer.data() + line + offset, fortran.size());
        from.execute(expected, back);
        EXPECT_TRUE(std::equal(back.begin(), back.end(), fortran.begin()))
            << text << " threads " << threads << " offset " << offset << ": " << from.describe();
        EXPECT_TRUE(std::all_of(buffer.begin(), buffer.begin() + line + offset,
                                [](std::byte b) { return b == std::byte{0x77}; }));
        EXPECT_TRUE(std::all_of(buffer.begin() + line + offset + fortran.size(), buffer.end(),
                                [](std::byte b) { return b == std::byte{0x77}; }));
      }
    }
  }
}

}  // namespace
}  // namespace tessera::relayout
