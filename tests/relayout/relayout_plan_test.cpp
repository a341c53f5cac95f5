// Relayout plans against a naive per-element reference built on IndexMap::linear_index, over
// random pairs of XLA layouts (tiles of 1-3 levels, packing tiles, '*', L(n), E(n)).
#include "tessera/relayout/relayout_plan.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "relayout/host_profile.h"
#include "support/random_bytes.h"
#include "tessera/error.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::relayout {
namespace {

using Bytes = std::vector<std::byte>;

// Reads element `offset` of `bits` bits (sub-byte elements packed low bits first).
uint64_t element(const Bytes& buffer, int64_t offset, int bits) {
  uint64_t v = 0;
  if (bits % 8 == 0) {
    std::memcpy(&v, buffer.data() + offset * (bits / 8),
                static_cast<std::size_t>(std::min(bits, 64) / 8));
    return v;
  }
  for (int b = 0; b < bits; ++b) {
    const int64_t bit = offset * bits + b;
    v |= static_cast<uint64_t>((static_cast<unsigned>(buffer[bit / 8]) >> (bit % 8)) & 1u) << b;
  }
  return v;
}

uint64_t mask(int bits) {
  return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

using test_support::random_bytes;

// Every logical element of `to` equals that of `from` (low bits); every padding element holds
// `fill` (or, with `untouched`, still holds its old value).
void expect_converted(const IndexMap& a, const Bytes& from, const IndexMap& b, const Bytes& to,
                      const Bytes& before, std::optional<uint64_t> fill, const std::string& what,
                      int compared_bits = 64) {
  const int ab = a.element_bits();
  const int bb = b.element_bits();
  const int common = std::min({ab, bb, compared_bits});
  // Every logical index through both maps' linear_index (the per-element formula).
  std::vector<bool> data(static_cast<std::size_t>(b.size_elements()), false);
  std::vector<int64_t> index(a.dims().size(), 0);
  for (int64_t n = 0; n < a.logical_elements(); ++n) {
    const int64_t offset = b.linear_index(index);
    data[static_cast<std::size_t>(offset)] = true;
    const uint64_t want = element(from, a.linear_index(index), ab) & mask(common);
    ASSERT_EQ(element(to, offset, bb) & mask(common), want) << what << " at offset " << offset;
    for (std::size_t k = index.size(); k-- > 0;) {
      if (++index[k] < a.dims()[k]) break;
      index[k] = 0;
    }
  }
  for (int64_t offset = 0; offset < b.size_elements(); ++offset) {
    if (data[static_cast<std::size_t>(offset)]) continue;
    const uint64_t got = element(to, offset, bb);
    if (fill) {
      ASSERT_EQ(got, *fill & mask(bb)) << what << " padding at offset " << offset;
    } else {
      ASSERT_EQ(got, element(before, offset, bb)) << what << " kept padding at offset " << offset;
    }
  }
}

std::string random_tile(std::mt19937_64& rng, int rank, bool first) {
  static const int64_t kSizes[] = {1, 2, 3, 4, 8, 16};
  if (!first) {
    switch (rng() % 5) {
      case 0:
        return "(2,1)";
      case 1:
        return "(4,1)";
      case 2:
        return "(32,1)";
      case 3:
        return "(2)";
      default:
        break;
    }
  }
  const int length = 1 + static_cast<int>(rng() % static_cast<uint64_t>(std::max(1, rank)));
  std::string tile = "(";
  for (int i = 0; i < length; ++i) {
    if (i > 0) tile += ",";
    if (i + 1 < length && rng() % 6 == 0) {
      tile += "*";
    } else {
      tile += std::to_string(kSizes[rng() % 6]);
    }
  }
  return tile + ")";
}

// A random layout of type[dims]; nullopt when the random pick is not a valid layout.
std::optional<xla::TiledLayout> random_tiled_layout(std::mt19937_64& rng, const std::string& type,
                                                    const std::vector<int64_t>& dims,
                                                    bool sub_byte) {
  std::vector<int64_t> order(dims.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = static_cast<int64_t>(order.size() - 1 - i);
  if (rng() % 2) std::shuffle(order.begin(), order.end(), rng);
  std::string text = type + "[";
  for (std::size_t i = 0; i < dims.size(); ++i) text += (i ? "," : "") + std::to_string(dims[i]);
  text += "]{";
  for (std::size_t i = 0; i < order.size(); ++i) text += (i ? "," : "") + std::to_string(order[i]);
  const int levels = static_cast<int>(rng() % 4);
  std::string properties;
  if (levels > 0) {
    properties += "T";
    for (int l = 0; l < levels; ++l)
      properties += random_tile(rng, static_cast<int>(dims.size()), l == 0);
  }
  if (rng() % 4 == 0) properties += "L(" + std::to_string(1 + rng() % 5) + ")";
  if (sub_byte && rng() % 2) properties += type == "pred" ? "E(1)" : "E(4)";
  if (!properties.empty()) text += ":" + properties;
  text += "}";
  try {
    return xla::TiledLayout(xla::parse_shape(text));
  } catch (const Error&) {
    return std::nullopt;
  }
}

struct TypeCase {
  const char* type;
  bool sub_byte;
};

TEST(RelayoutPlanProperty, RandomXlaPairsRoundTripAndMatchTheReference) {
  std::mt19937_64 rng(20261121);
  const TypeCase cases[] = {{"f32", false}, {"bf16", false}, {"s8", false}, {"f64", false},
                            {"pred", true}, {"s4", true},    {"u16", false}};
  int converted = 0;
  int fast = 0;  // pairs with a common refinement (no general walk)
  for (int trial = 0; trial < 250; ++trial) {
    const TypeCase& c = cases[trial % 7];
    const int rank = 1 + static_cast<int>(rng() % 3);
    std::vector<int64_t> dims;
    for (int i = 0; i < rank; ++i)
      dims.push_back(1 + static_cast<int64_t>(rng() % (rank == 1 ? 300 : rank == 2 ? 40 : 12)));
    const auto a = random_tiled_layout(rng, c.type, dims, c.sub_byte);
    const auto b = random_tiled_layout(rng, c.type, dims, c.sub_byte);
    if (!a || !b) continue;
    const std::string what = xla::print_shape(a->shape()) + " -> " + xla::print_shape(b->shape());
    const IndexMap& ma = a->index_map();
    const IndexMap& mb = b->index_map();
    const Bytes source = random_bytes(ma.size_bytes(), rng);
    const Bytes before = random_bytes(mb.size_bytes(), rng);
    const uint64_t fill = rng();
    const int threads = 1 + trial % 2;
    // Written padding.
    Bytes to = before;
    const RelayoutPlan forward = plan(ma, mb, {.threads = threads, .fill_bits = fill});
    fast += forward.describe().find("general") == std::string::npos;
    forward.execute(source, to);
    expect_converted(ma, source, mb, to, before, fill, what);
    // Kept padding, and the other thread count gives the same bytes.
    Bytes kept = before;
    plan(ma, mb, {.threads = 3 - threads, .keep_padding = true}).execute(source, kept);
    expect_converted(ma, source, mb, kept, before, std::nullopt, what + " keep_padding");
    Bytes again = before;
    plan(ma, mb, {.threads = 3 - threads, .fill_bits = fill}).execute(source, again);
    ASSERT_EQ(again, to) << what << " 1 vs 2 threads";
    // Back again: the identity on data.
    Bytes back(static_cast<std::size_t>(ma.size_bytes()), std::byte{0});
    plan(mb, ma, {.threads = threads}).execute(to, back);
    expect_converted(ma, source, ma, back, back, 0, what + " round trip", mb.element_bits());
    if (::testing::Test::HasFatalFailure()) return;
    ++converted;
  }
  EXPECT_GT(converted, 90);
  EXPECT_GT(fast, converted / 2) << fast << " of " << converted;
}

xla::TiledLayout layout(const char* text) {
  return xla::TiledLayout(xla::parse_shape(text));
}

TEST(RelayoutPlan, TiledLayoutFigure1PlacesElementsAndZeroesPadding) {
  // Tiled layout spec, Figure 1: f32[3,5]{1,0:T(2,2)}; (2,3) lands at offset 17, 9 padding.
  const auto from = layout("f32[3,5]{1,0}");
  const auto to = layout("f32[3,5]{1,0:T(2,2)}");
  std::vector<float> source(15);
  for (int i = 0; i < 15; ++i) source[i] = static_cast<float>(i + 1);
  std::vector<float> destination(24, -1.0f);
  plan(from.index_map(), to.index_map(), {})
      .execute(std::as_bytes(std::span(source)), std::as_writable_bytes(std::span(destination)));
  EXPECT_EQ(destination[17], 14.0f);  // element (2,3) = row-major offset 13
  int zeros = 0;
  for (float v : destination) zeros += v == 0.0f;
  EXPECT_EQ(zeros, 9);
}

TEST(RelayoutPlan, RefusesTooSmallBuffers) {
  const auto from = layout("f32[8,128]{1,0}");
  const auto to = layout("f32[8,128]{0,1}");
  const auto p = plan(from.index_map(), to.index_map(), {});
  Bytes small(4095), big(4096);
  try {
    p.execute(small, big);
    FAIL() << "a short source was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBufferSize);
  }
  EXPECT_THROW(p.execute(big, small), Error);
}

TEST(RelayoutPlan, RefusesDifferentArrays) {
  EXPECT_THROW(plan(layout("f32[8,128]").index_map(), layout("f32[128,8]").index_map(), {}), Error);
}

// E(n) is storage: pred E(8) <-> E(32) (XLA's TPU pred) keeps the value in the low bits.
TEST(RelayoutPlan, WidensAndNarrowsWholeByteStorage) {
  const std::vector<std::byte> bytes = {std::byte{1}, std::byte{0}, std::byte{1}};
  std::vector<std::byte> words(12, std::byte{0xee});
  plan(layout("pred[3]").index_map(), layout("pred[3]{0:E(32)}").index_map(), {})
      .execute(bytes, words);
  EXPECT_EQ(words, (std::vector<std::byte>{
                       std::byte{1}, {}, {}, {}, {}, {}, {}, {}, std::byte{1}, {}, {}, {}}));
  std::vector<std::byte> back(3);
  plan(layout("pred[3]{0:E(32)}").index_map(), layout("pred[3]").index_map(), {})
      .execute(words, back);
  EXPECT_EQ(back, bytes);
}

// Regression (security): a sub-byte layout converted to or from E(n) wider than 64 bits passed
// the width check and the element accessors copied n/8 bytes into or out of a 64-bit word.
TEST(RelayoutPlan, RefusesStorageWiderThan64BitsUnlessCopiedUnchanged) {
  const auto refused = [](const char* from, const char* to) {
    try {
      plan(layout(from).index_map(), layout(to).index_map(), {});
      ADD_FAILURE() << from << " -> " << to << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kInvalid);
      EXPECT_NE(std::string(e.what()).find("wider than 64 bits"), std::string::npos) << e.what();
    }
  };
  refused("s4[1]{0:E(4)}", "s4[1]{0:E(65536)}");
  refused("s4[1]{0:E(65536)}", "s4[1]{0:E(4)}");
  refused("s4[3]{0:E(4)}", "s4[3]{0:E(65)}");
  refused("s4[3]{0:E(65)}", "s4[3]{0:E(65)}");
  refused("pred[2]{0:E(1)}", "pred[2]{0:E(72)}");
  // The same wide storage on both sides is a plain byte copy: allowed, and exact.
  const auto wide = layout("s4[2]{0:E(128)}");
  EXPECT_NO_THROW(plan(wide.index_map(), wide.index_map(), {}));
  Bytes source(32), destination(32, std::byte{0});
  for (std::size_t i = 0; i < source.size(); ++i) source[i] = static_cast<std::byte>(i + 1);
  plan(wide.index_map(), wide.index_map(), {}).execute(source, destination);
  EXPECT_EQ(source, destination);
}

TEST(RelayoutPlan, PackedPredTakesLowBitsAndUnpackedS4SignExtends) {
  const auto bytes = layout("s4[4]{0}");
  const auto packed = layout("s4[4]{0:E(4)}");
  const std::vector<uint8_t> values{0x0F, 0x13, 0x08, 0x07};
  std::vector<uint8_t> nibbles(2, 0);
  plan(bytes.index_map(), packed.index_map(), {})
      .execute(std::as_bytes(std::span(values)), std::as_writable_bytes(std::span(nibbles)));
  EXPECT_EQ(nibbles[0], 0x3F);  // low bits first: element 0 in the low nibble
  EXPECT_EQ(nibbles[1], 0x78);
  std::vector<uint8_t> unpacked(4, 0);
  plan(packed.index_map(), bytes.index_map(), {.sign_extend = true})
      .execute(std::as_bytes(std::span(nibbles)), std::as_writable_bytes(std::span(unpacked)));
  EXPECT_EQ(unpacked, (std::vector<uint8_t>{0xFF, 0x03, 0xF8, 0x07}));
}

TEST(RelayoutPlan, LargeCasesUseFastKernelsAndMatchTheReference) {
  // Shapes big enough for the SIMD kernels (interleave, 16x16 transpose, bit packing).
  const char* const pairs[][2] = {
      {"bf16[64,256]{1,0}", "bf16[64,256]{1,0:T(8,128)(2,1)}"},
      {"s8[64,256]{1,0}", "s8[64,256]{1,0:T(32,128)(4,1)}"},
      {"f32[64,80]{1,0}", "f32[64,80]{0,1}"},
      {"f32[32,256]{1,0:T(8,128)}", "f32[32,256]{0,1:T(8,128)}"},
      {"f32[256,256]{1,0:T(8,128)}", "f32[256,256]{0,1:T(8,128)}"},  // 8x8 tiles grouped
      {"pred[64,256]{1,0}", "pred[64,256]{1,0:T(32,128)(32,1)E(1)}"},
      {"pred[32,4160]{1,0}", "pred[32,4160]{1,0:T(32,128)(32,1)E(1)}"},  // > one column block
      {"f32[40,300]{1,0}", "f32[40,300]{1,0:T(8,128)}"},
      // Unpacking (2,1) and (4,1) tiles: the deinterleave kernels, and scalar partial tiles.
      {"bf16[64,256]{1,0:T(8,128)(2,1)}", "bf16[64,256]{1,0}"},
      {"s8[64,256]{1,0:T(32,128)(4,1)}", "s8[64,256]{1,0}"},
      {"bf16[30,250]{1,0:T(8,128)(2,1)}", "bf16[30,250]{1,0}"},
      {"s8[33,250]{1,0:T(32,128)(4,1)}", "s8[33,250]{1,0}"},
      // 4 MiB outputs: written with non-temporal stores.
      {"f32[1024,1024]{1,0}", "f32[1024,1024]{0,1}"},
      {"bf16[1024,2048]{1,0}", "bf16[1024,2048]{1,0:T(8,128)(2,1)}"},
      {"f32[1000,1030]{1,0}", "f32[1000,1030]{1,0:T(8,128)}"},
      {"f32[1000,1030]{1,0}", "f32[1000,1030]{0,1}"},  // partial 16x16 tiles at the edges
      // Rows 496 bytes short of whole tiles: the runs kernel reads the gaps between its rows.
      {"f32[520,2044]{1,0}", "f32[520,2044]{1,0:T(8,128)}"},
      // Rows 8 bytes off a 16-byte boundary: 8-byte streaming stores at both ends of each run.
      {"f32[1000,1030]{1,0:T(8,128)}", "f32[1000,1030]{1,0}"},
      {"bf16[1000,2060]{1,0:T(8,128)(2,1)}", "bf16[1000,2060]{1,0}"},
      // Grouped 8x8 tiles with the prefetch of the next tile column, and with padded tiles.
      {"f32[1024,1024]{1,0:T(8,128)}", "f32[1024,1024]{0,1:T(8,128)}"},
      {"f32[1032,1040]{1,0:T(8,128)}", "f32[1032,1040]{0,1:T(8,128)}"},
      // A block of 3 rows of 16-row tiles: a last share of rows shorter than the others.
      {"f32[1072,1024]{1,0:T(8,128)}", "f32[1072,1024]{0,1:T(8,128)}"},
  };
  std::mt19937_64 rng(7);
  for (const auto& pair : pairs) {
    const auto a = layout(pair[0]);
    const auto b = layout(pair[1]);
    const Bytes source = random_bytes(a.size_bytes(), rng);
    Bytes to(static_cast<std::size_t>(b.size_bytes()), std::byte{0x55});
    // 4 MiB outputs stream whatever the host's cache (the default leaves runs this small cached).
    const auto p =
        plan(a.index_map(), b.index_map(), {.threads = 2, .streaming_bytes = int64_t{4} << 20});
    EXPECT_EQ(p.describe().find("general"), std::string::npos) << pair[0] << "\n" << p.describe();
    p.execute(source, to);
    expect_converted(a.index_map(), source, b.index_map(), to, to, 0, pair[1]);
  }
}

TEST(RelayoutPlan, DescribeCountsRepeatedPiecesOnOneLine) {
  // A 4 MiB transpose is cut into one piece per worker band; all read alike.
  const auto a = layout("f32[1024,1024]{1,0}");
  const auto b = layout("f32[1024,1024]{0,1}");
  const auto p = plan(a.index_map(), b.index_map(), {.threads = 2});
  ASSERT_GT(p.piece_count(), 1);
  const std::string text = p.describe();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
  EXPECT_TRUE(text.starts_with("transpose 2 axes [")) << text;
  EXPECT_TRUE(text.ends_with(fmt::format(" ({} pieces)\n", p.piece_count()))) << text;
  // One piece alone keeps its plain line.
  const auto small = plan(layout("f32[8,8]{1,0}").index_map(), layout("f32[8,8]{0,1}").index_map(),
                          {.threads = 1});
  ASSERT_EQ(small.piece_count(), 1);
  EXPECT_EQ(small.describe().find("pieces"), std::string::npos) << small.describe();
}

TEST(RelayoutPlan, RunsAreWalkedInTheOrderTheirVariantNames) {
  // describe() lists the walk's axes from the runs out (copy_kernels.cpp, order_runs_walk).
  // Untiling reads each tile in turn, 8 destination rows open, with either walk. Tiling reads one
  // source row at a time (16 tiles open for writing) with `src`, and writes each tile in turn, 8
  // source rows open, with `few`; with only 2 tiles per tile row `few` keeps the source's order
  // too (2 tiles open, not 8 rows). The model walks `few` where the host's prior says so.
  const auto axes = [](const char* from, const char* to, const char* variant) {
    const std::string text = plan(layout(from).index_map(), layout(to).index_map(),
                                  {.threads = 1, .variant = ForcedVariant::parse(variant)})
                                 .describe();
    return text.substr(0, text.find(']') + 1);
  };
  const char* model = host_priors().walk_fewer_streams ? "few" : "src";
  for (const char* walk : {"src", "few", ""}) {
    const bool few = std::string(walk) == "few" || (*walk == '\0' && std::string(model) == "few");
    EXPECT_EQ(axes("f32[64,2048]{1,0:T(8,128)}", "f32[64,2048]{1,0}", walk),
              "runs 4 axes [128x8x16x8]");
    EXPECT_EQ(axes("f32[64,2048]{1,0}", "f32[64,2048]{1,0:T(8,128)}", walk),
              few ? "runs 4 axes [128x8x16x8]" : "runs 4 axes [128x16x8x8]")
        << walk;
    EXPECT_EQ(axes("f32[64,256]{1,0}", "f32[64,256]{1,0:T(8,128)}", walk),
              "runs 4 axes [128x2x8x8]");
  }
}

TEST(RelayoutPlan, EmptyArraysConvertWithEmptyBuffers) {
  // Zero-element arrays occupy zero bytes, so their buffers may have no address at all; nothing
  // may touch them (fuzz_relayout_pair: a null memset filling pred[40,0]'s padding).
  const char* pairs[][2] = {{"pred[40,0]{1,0}", "pred[40,0]{1,0:T(32,4)(32,1)}"},
                            {"f32[0,130]{1,0}", "f32[0,130]{0,1:T(8,128)}"},
                            {"bf16[3,0,5]{2,1,0}", "bf16[3,0,5]{2,1,0:T(8,128)(2,1)}"},
                            {"s4[0]{0}", "s4[0]{0:T(1024)E(4)}"}};
  for (const auto& pair : pairs) {
    const xla::TiledLayout a(xla::parse_shape(pair[0]));
    const xla::TiledLayout b(xla::parse_shape(pair[1]));
    for (const int threads : {1, 2}) {
      plan(a.index_map(), b.index_map(), {.threads = threads, .fill_bits = 0xff}).execute({}, {});
      plan(b.index_map(), a.index_map(), {.threads = threads}).execute({}, {});
    }
  }
}

}  // namespace
}  // namespace tessera::relayout
