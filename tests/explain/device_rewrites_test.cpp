// The era-2026 advice (device_rewrites.h): the arrays it was written for, a brute force over small
// shapes (no rewrite of the kinds offered beats the best offer, and no pad beats it either), and
// the rewrites the real compiler compiled (tests/fixtures/tpu_oracle/rewrites.json): each offer's
// layout is the one the compiler gave its change, and no compiled rewrite is smaller than the
// best offer.
#include "tessera/explain/device_rewrites.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <random>

#include "explain/test_support.h"
#include "tessera/checked_arithmetic.h"
#include "tessera/tpu/compiler_model.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::explain {
namespace {

// The array a shape's text names on tpu-v5e, as `tessera explain` lays it out.
xla::Shape laid_out(const std::string& text) {
  return tpu::layout_for_target(text, tpu::parse_tpu_target("tpu-v5e"));
}

int64_t size_of(const xla::Shape& shape) {
  return xla::TiledLayout(shape).size_bytes();
}

std::vector<ProgramFix> offers(const xla::Shape& shape, const ShardSplit& split = {}) {
  return device_rewrites(shape, size_of(shape), tpu::parse_tpu_target("tpu-v5e"), 1000, split);
}

TEST(DeviceRewrites, FlattenIsOfferedFirstWhenItIsSmallest) {
  // Regression: the pad was offered though x.reshape(-1) takes less.
  const auto fixes = offers(laid_out("f32[7,5,5,1]"));
  ASSERT_FALSE(fixes.empty());
  EXPECT_EQ(fixes[0].kind, "reshape");
  EXPECT_EQ(fixes[0].change, "x.reshape(-1)");
  EXPECT_EQ(fixes[0].layout, "f32[175]{0:T(256)}");
  EXPECT_EQ(fixes[0].size_bytes, kKiB);
  for (const auto& f : fixes) EXPECT_NE(f.kind, "pad") << f.change;
}

TEST(DeviceRewrites, FlattenBeatsThePadOfTheReadme) {
  // f32[10,100,3]: the pad to 30 x 128 takes 16 KiB, the flatten 12 KiB.
  const auto fixes = offers(laid_out("f32[10,100,3]"));
  ASSERT_FALSE(fixes.empty());
  EXPECT_EQ(fixes[0].change, "x.reshape(-1)");
  EXPECT_EQ(fixes[0].size_bytes, 12 * kKiB);
  for (const auto& f : fixes) EXPECT_NE(f.kind, "pad") << f.change;
}

TEST(DeviceRewrites, ShardedArrayReshapesEachShard) {
  // f32[1997,100,3] over 8 devices along dim 0: each holds f32[250,100,3], 312 KiB; the flatten
  // of a shard takes 296 KiB, the pad to 256 rows and rows of 128 lanes 300 KiB: no pad.
  const xla::Shape shard = laid_out("f32[250,100,3]");
  EXPECT_EQ(size_of(shard), 312 * kKiB);
  const auto fixes = offers(shard, {{1997, 100, 3}, {8, 1, 1}});
  ASSERT_FALSE(fixes.empty());
  EXPECT_EQ(fixes[0].size_bytes, 296 * kKiB);
  EXPECT_EQ(fixes[0].change, "x.reshape(-1)  # per shard, e.g. inside shard_map");
  for (const auto& f : fixes) EXPECT_NE(f.kind, "pad") << f.change;
}

TEST(DeviceRewrites, TransposeOnlyForAnOrderTheProgramFixed) {
  // A device array already has the order with the fewest bytes: no transpose saves.
  for (const auto& f : offers(laid_out("f32[1024,3]"))) EXPECT_NE(f.kind, "reorder");
  // An intermediate written row-major (as OOM reports print it): the transpose that puts the
  // compiler's minor dims last.
  const auto fixes = offers(laid_out("s32[2048,1,128,128,4]{4,3,2,1,0}"));
  const auto reorder =
      std::find_if(fixes.begin(), fixes.end(), [](auto& f) { return f.kind == "reorder"; });
  ASSERT_NE(reorder, fixes.end());
  EXPECT_EQ(reorder->change, "jnp.transpose(x, (0, 1, 2, 4, 3))");
  EXPECT_EQ(reorder->layout, "s32[2048,1,128,4,128]{4,3,2,1,0:T(4,128)}");
  EXPECT_EQ(reorder->size_bytes, int64_t{512} << 20);
  // libtpu 0.0.42.1 cannot compile a c128 transpose that moves data: none is offered.
  for (const auto& f : offers(laid_out("c128[2,3,4]{1,2,0}"))) EXPECT_NE(f.kind, "reorder");
  // Other tiles in the same order (a rank-1 array from an old report) are no transpose.
  for (const auto& f : offers(xla::parse_shape("f32[3000]{0:T(256)}"))) {
    EXPECT_NE(f.kind, "reorder") << f.change;
  }
}

TEST(DeviceRewrites, PredAsBits) {
  const auto fixes = offers(laid_out("pred[1000,3]"));
  ASSERT_FALSE(fixes.empty());
  EXPECT_EQ(fixes[0].kind, "storage");
  EXPECT_EQ(fixes[0].change, "jnp.packbits(x)");
  EXPECT_EQ(fixes[0].layout, "u8[375]{0:T(512)(128)(4,1)}");
}

// --- the brute force -------------------------------------------------------------------------

int64_t device_size(ElementType type, const std::vector<int64_t>& dims) {
  return size_of(tpu::libtpu_device_shape(type, dims, tpu::parse_tpu_target("tpu-v5e")));
}

int64_t product(const std::vector<int64_t>& dims) {
  return std::accumulate(dims.begin(), dims.end(), int64_t{1}, std::multiplies<>());
}

// Every grouping of neighbours (the identity and the flatten included).
std::vector<std::vector<int64_t>> all_groupings(const std::vector<int64_t>& dims) {
  std::vector<std::vector<int64_t>> out;
  for (uint64_t mask = 0; mask < (uint64_t{1} << (dims.size() - 1)); ++mask) {
    std::vector<int64_t> g = {dims[0]};
    for (std::size_t i = 1; i < dims.size(); ++i) {
      if ((mask >> (i - 1)) & 1) {
        g.back() *= dims[i];
      } else {
        g.push_back(dims[i]);
      }
    }
    out.push_back(g);
  }
  return out;
}

// The smallest reshape of an array of `dims` (itself excluded unless `include_itself`).
int64_t best_reshape(ElementType type, const std::vector<int64_t>& dims, bool include_itself) {
  int64_t best = INT64_MAX;
  for (const auto& g : all_groupings(dims)) {
    if (g == dims && !include_itself) continue;
    best = std::min(best, device_size(type, g));
  }
  if (product(dims) % 128 == 0) {
    best = std::min(best, device_size(type, {product(dims) / 128, 128}));
  }
  return best;
}

struct BruteForce {
  int64_t without_pad = INT64_MAX;
  int64_t pad = INT64_MAX;
};

BruteForce brute_force(const xla::Shape& shape) {
  const ElementType type = shape.element_type;
  const auto& dims = shape.dimensions;
  BruteForce b;
  b.without_pad = best_reshape(type, dims, false);
  std::vector<int64_t> axes(dims.size());
  std::iota(axes.begin(), axes.end(), 0);
  const auto& m2m = shape.layout.minor_to_major;
  const std::vector<int64_t> memory(m2m.rbegin(), m2m.rend());
  do {
    std::vector<int64_t> permuted;
    for (int64_t a : axes) permuted.push_back(dims[static_cast<std::size_t>(a)]);
    if (!std::is_sorted(axes.begin(), axes.end())) {
      b.without_pad = std::min(b.without_pad, device_size(type, permuted));
    }
    if (axes == memory) {
      b.without_pad = std::min(b.without_pad, best_reshape(type, permuted, false));
    }
  } while (std::next_permutation(axes.begin(), axes.end()));
  if (type == ElementType::kPred) {
    b.without_pad =
        std::min(b.without_pad, device_size(ElementType::kU8, {ceil_divide(product(dims), 8)}));
    std::vector<int64_t> last = dims;
    last.back() = ceil_divide(last.back(), 8);
    b.without_pad = std::min(b.without_pad, device_size(ElementType::kU8, last));
  }
  for (std::size_t k = 0; k < dims.size(); ++k) {
    for (int64_t g : {2, 8, 128}) {
      std::vector<int64_t> padded = dims;
      padded[k] = round_up(dims[k], g, "test");
      if (padded[k] == dims[k]) continue;
      b.pad = std::min(b.pad, best_reshape(type, padded, true));
    }
  }
  return b;
}

std::vector<std::vector<int64_t>> small_shapes() {
  const std::vector<int64_t> sizes = {1, 2, 3, 5, 8, 100, 130};
  std::vector<std::vector<int64_t>> shapes;
  for (int64_t a : sizes) {
    shapes.push_back({a});
    for (int64_t b : sizes) {
      shapes.push_back({a, b});
      for (int64_t c : sizes) shapes.push_back({a, b, c});
    }
  }
  std::mt19937_64 random(39);
  for (int i = 0; i < 150; ++i) {
    std::vector<int64_t> dims(4);
    for (int64_t& d : dims) d = sizes[random() % sizes.size()];
    shapes.push_back(dims);
  }
  return shapes;
}

TEST(DeviceRewrites, NoRewriteOfTheKindsOfferedBeatsTheBestOffer) {
  std::mt19937_64 random(390);
  int pads = 0, transposes = 0, checked = 0;
  for (ElementType type :
       {ElementType::kF32, ElementType::kBF16, ElementType::kS8, ElementType::kPred}) {
    for (const auto& dims : small_shapes()) {
      for (bool written : {false, true}) {
        if (written && dims.size() < 2) continue;
        std::string text = fmt::format("{}[{}]", element_type_name(type), fmt::join(dims, ","));
        if (written) {  // an order the program fixed, as an HLO dump prints it
          std::vector<int64_t> m2m(dims.size());
          std::iota(m2m.begin(), m2m.end(), 0);
          std::shuffle(m2m.begin(), m2m.end(), random);
          text += fmt::format("{{{}}}", fmt::join(m2m, ","));
        }
        const xla::Shape shape = laid_out(text);
        const int64_t current = size_of(shape);
        const BruteForce b = brute_force(shape);
        const auto fixes = offers(shape);
        const int64_t best = std::min(current, b.without_pad);
        ++checked;
        // No pad, alone or reshaped, beats the best rewrite without one (device_rewrites.h).
        EXPECT_GE(b.pad, best) << text;
        pads += b.pad != INT64_MAX;
        if (best == current) {
          EXPECT_TRUE(fixes.empty()) << text << " " << fixes[0].change;
          continue;
        }
        ASSERT_FALSE(fixes.empty()) << text;
        EXPECT_EQ(fixes[0].size_bytes, best) << text << ": " << fixes[0].change;
        for (std::size_t i = 0; i < fixes.size(); ++i) {
          const ProgramFix& f = fixes[i];
          EXPECT_GT(f.bytes_saved, 0) << text;
          EXPECT_EQ(f.bytes_saved, current - f.size_bytes) << text;
          if (i > 0) {
            EXPECT_LE(fixes[i - 1].size_bytes, f.size_bytes) << text;
          }
          // The layout is the compiler's for the new array, and its size what is claimed.
          const xla::Shape made = xla::parse_shape(f.layout);
          EXPECT_EQ(xla::print_shape(tpu::libtpu_device_shape(made.element_type, made.dimensions,
                                                              tpu::parse_tpu_target("tpu-v5e"))),
                    f.layout);
          EXPECT_EQ(size_of(made), f.size_bytes) << f.layout;
          if (f.kind == "reorder") {
            ++transposes;
            EXPECT_TRUE(written) << text << ": a device array's transpose saves nothing";
          }
          EXPECT_TRUE(f.change.starts_with("x.") || f.change.starts_with("jnp.")) << f.change;
        }
      }
    }
  }
  EXPECT_GT(checked, 4000);
  EXPECT_GT(pads, 3000);  // shapes where some pad was tried
  EXPECT_GT(transposes, 0);
}

// --- the compiler's record --------------------------------------------------------------------

nlohmann::json read_rewrites() {
  const auto path =
      std::filesystem::path(TESSERA_TESTS_DIR) / "fixtures" / "tpu_oracle" / "rewrites.json";
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  return nlohmann::json::parse(in);
}

TEST(DeviceRewrites, EveryOfferIsWhatTheCompilerGaveItsChange) {
  const nlohmann::json fixture = read_rewrites();
  ASSERT_EQ(fixture.at("target"), "tpu-v5e");
  int offers_checked = 0, rewrites_checked = 0;
  for (const auto& entry : fixture.at("rewrites")) {
    std::string text = entry.at("array");
    if (!entry.at("major_to_minor").is_null()) {
      std::vector<int64_t> m2m = entry.at("major_to_minor");
      std::reverse(m2m.begin(), m2m.end());
      text += fmt::format("{{{}}}", fmt::join(m2m, ","));
    }
    const xla::Shape shape = laid_out(text);
    EXPECT_EQ(xla::print_shape(shape), entry.at("input_layout").get<std::string>()) << text;
    std::map<std::string, std::string> compiled;  // change -> layout
    int64_t smallest = INT64_MAX;
    for (std::size_t i = 0; i < entry.at("codes").size(); ++i) {
      const std::string layout = entry.at("layouts")[i];
      ASSERT_FALSE(layout.starts_with("error")) << text << " " << entry.at("codes")[i] << layout;
      compiled[entry.at("codes")[i]] = layout;
      // The array a rewrite makes is a device array of its dims: the model's layout.
      const xla::Shape made = xla::parse_shape(layout);
      EXPECT_EQ(
          xla::print_shape(laid_out(fmt::format("{}[{}]", element_type_name(made.element_type),
                                                fmt::join(made.dimensions, ",")))),
          layout)
          << text << " " << entry.at("codes")[i];
      smallest = std::min(smallest, size_of(made));
      ++rewrites_checked;
    }
    const int64_t current = size_of(shape);
    const auto fixes = offers(shape);
    if (smallest < current) {
      ASSERT_FALSE(fixes.empty()) << text;
      EXPECT_EQ(fixes[0].size_bytes, smallest) << text << ": " << fixes[0].change;
    } else {
      EXPECT_TRUE(fixes.empty()) << text;
    }
    for (const ProgramFix& f : fixes) {
      const auto it = compiled.find(f.change);
      ASSERT_NE(it, compiled.end()) << text << ": the compiler was not asked " << f.change;
      EXPECT_EQ(f.layout, it->second) << text << " " << f.change;
      EXPECT_EQ(f.size_bytes, size_of(xla::parse_shape(it->second)));
      ++offers_checked;
    }
  }
  EXPECT_GT(offers_checked, 200);
  EXPECT_GT(rewrites_checked, 5000);
}

}  // namespace
}  // namespace tessera::explain
