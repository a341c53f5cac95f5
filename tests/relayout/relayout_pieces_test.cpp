// execute_pieces over consecutive ranges is execute(): the streaming and progress path of
// `tessera convert` writes the same bytes as one call.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "support/random_bytes.h"
#include "tessera/relayout/relayout_plan.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::relayout {
namespace {

using Bytes = std::vector<std::byte>;

using test_support::random_bytes;

struct Case {
  const char* from;
  const char* to;
};

class PiecesEqualWhole : public ::testing::TestWithParam<Case> {};

TEST_P(PiecesEqualWhole, InGroupsOfAnySize) {
  const xla::TiledLayout from(xla::parse_shape(GetParam().from));
  const xla::TiledLayout to(xla::parse_shape(GetParam().to));
  std::mt19937_64 rng(7);
  const Bytes source = random_bytes(from.index_map().size_bytes(), rng);
  for (int threads : {1, 2}) {
    RelayoutOptions options;
    options.threads = threads;
    options.fill_bits = 0x5a;
    const RelayoutPlan plan = relayout::plan(from.index_map(), to.index_map(), options);
    Bytes whole = random_bytes(to.index_map().size_bytes(), rng);
    plan.execute(source, whole);
    int64_t bytes = 0;
    for (int64_t p = 0; p < plan.piece_count(); ++p) bytes += plan.piece_bytes(p);
    EXPECT_GT(bytes, 0);
    for (int64_t group : {int64_t{1}, int64_t{3}, plan.piece_count()}) {
      Bytes pieces = random_bytes(to.index_map().size_bytes(), rng);
      for (int64_t p = 0; p < plan.piece_count(); p += group)
        plan.execute_pieces(source, pieces, p, std::min(p + group, plan.piece_count()));
      EXPECT_EQ(pieces, whole) << GetParam().from << " -> " << GetParam().to << " in groups of "
                               << group;
    }
  }
}

const auto kCases = ::testing::Values(
    Case{"f32[1024,1024]{1,0}", "f32[1024,1024]{1,0:T(8,128)}"},
    Case{"f32[1000,999]{1,0}", "f32[1000,999]{0,1:T(8,128)}"},
    Case{"bf16[300,700]{1,0}", "bf16[300,700]{1,0:T(8,128)(2,1)}"},
    Case{"s4[33,65]{1,0:E(8)}", "s4[33,65]{1,0:T(8,128)(2,1)E(4)}"},
    Case{"f32[1024,1024]{1,0}", "f32[1024,1024]{0,1}"}, Case{"f32[5]{0}", "f32[5]{0}"});

INSTANTIATE_TEST_SUITE_P(Layouts, PiecesEqualWhole, kCases);

// destination_settled_bytes(k) is a promise the streaming writer relies on when it sends output
// to disk early: pieces from k on never write below it.
class SettledBytes : public ::testing::TestWithParam<Case> {};

TEST_P(SettledBytes, LaterPiecesNeverWriteBelowThem) {
  const xla::TiledLayout from(xla::parse_shape(GetParam().from));
  const xla::TiledLayout to(xla::parse_shape(GetParam().to));
  std::mt19937_64 rng(11);
  const Bytes source = random_bytes(from.index_map().size_bytes(), rng);
  RelayoutOptions options;
  options.fill_bits = 0x5a;
  const RelayoutPlan plan = relayout::plan(from.index_map(), to.index_map(), options);
  const int64_t count = plan.piece_count();
  EXPECT_EQ(plan.destination_settled_bytes(0), 0);
  EXPECT_EQ(plan.destination_settled_bytes(count), plan.destination_bytes());
  for (int64_t k = 0; k < count; ++k) {
    const int64_t settled = plan.destination_settled_bytes(k);
    EXPECT_LE(settled, plan.destination_settled_bytes(k + 1));
    const Bytes untouched(static_cast<std::size_t>(to.index_map().size_bytes()), std::byte{0xee});
    Bytes destination = untouched;
    plan.execute_pieces(source, destination, k, count);
    const auto below = static_cast<std::ptrdiff_t>(settled);
    EXPECT_TRUE(std::equal(destination.begin(), destination.begin() + below, untouched.begin()))
        << GetParam().from << " -> " << GetParam().to << ": pieces from " << k
        << " write below byte " << settled;
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, SettledBytes, kCases);

// Row-major -> T(8,128) settles in order, so `tessera convert` can write it back as it goes.
TEST(SettledBytes, RowMajorToTiledSettlesAsItGoes) {
  const xla::TiledLayout from(xla::parse_shape("f32[1024,1024]{1,0}"));
  const xla::TiledLayout to(xla::parse_shape("f32[1024,1024]{1,0:T(8,128)}"));
  const RelayoutPlan plan = relayout::plan(from.index_map(), to.index_map(), {});
  const int64_t half = plan.piece_count() / 2;
  ASSERT_GE(half, 1);
  int64_t written = 0;
  for (int64_t p = 0; p < half; ++p) written += plan.piece_bytes(p);
  EXPECT_EQ(plan.destination_settled_bytes(half), written);
}

// A sub-byte layout's last byte keeps no stale bits from a reused buffer.
TEST(Pieces, SubByteTrailingBitsAreZeroed) {
  const xla::TiledLayout from(xla::parse_shape("s4[3]{0:E(8)}"));
  const xla::TiledLayout to(xla::parse_shape("s4[3]{0:E(4)}"));
  RelayoutOptions options;
  options.keep_padding = true;
  const Bytes source = {std::byte{1}, std::byte{2}, std::byte{3}};
  Bytes destination(2, std::byte{0xff});
  plan(from.index_map(), to.index_map(), options).execute(source, destination);
  EXPECT_EQ(destination, (Bytes{std::byte{0x21}, std::byte{0x03}}));
}

}  // namespace
}  // namespace tessera::relayout
