// Relayout between system-memory arrays (XLA layouts) and NPU local-memory images: the GDMA
// S2L/L2S transfers of the NPU spec, over random devices, shapes, types, layouts and modes.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "tessera/error.h"
#include "tessera/npu/npu_arguments.h"
#include "tessera/relayout/relayout_plan.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::relayout {
namespace {

using Bytes = std::vector<std::byte>;

Bytes read(const Bytes& buffer, int64_t offset, int bits) {
  const auto begin = buffer.begin() + offset * bits / 8;
  return Bytes(begin, begin + bits / 8);
}

TEST(RelayoutNpu, RandomTensorsRoundTripAndKeepTheRestOfTheImage) {
  std::mt19937_64 rng(1684);
  const char* const layouts[] = {"aligned", "compact", "strides=400,37,9,1"};
  const char* const types[] = {"f32", "f16", "s8", "u8"};
  const char* const modes[] = {"none", "none", "4N", "2N", "2IC"};
  int converted = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const std::vector<int64_t> dims{
        1 + static_cast<int64_t>(rng() % 3), 1 + static_cast<int64_t>(rng() % 9),
        1 + static_cast<int64_t>(rng() % 4), 1 + static_cast<int64_t>(rng() % 5)};
    npu::TensorArguments arguments;
    arguments.device = "npus=4,lmem=4096,align=32";
    arguments.shape = fmt::format("{},{},{},{}", dims[0], dims[1], dims[2], dims[3]);
    arguments.dtype = types[rng() % 4];
    arguments.address = std::to_string((rng() % 16) * 1024 + (rng() % 4) * 32);
    arguments.layout = layouts[rng() % 3];
    arguments.mode = modes[rng() % 5];
    std::optional<npu::LocalTensor> tensor;
    try {
      tensor.emplace(npu::make_local_tensor(arguments));
      tensor->index_map();
    } catch (const Error&) {
      continue;
    }
    const IndexMap& image = tensor->index_map();
    const std::string system_text = fmt::format(
        "{}[{},{},{},{}]{{{}}}", element_type_name(tensor->element_type()), image.dims()[0],
        image.dims()[1], image.dims()[2], image.dims()[3], rng() % 2 ? "3,2,1,0" : "1,3,2,0");
    const xla::TiledLayout system(xla::parse_shape(system_text));
    const IndexMap& flat = system.index_map();
    ASSERT_EQ(flat.element_bits(), image.element_bits());
    const int bits = image.element_bits();
    const std::string what = system_text + " -> npu " + arguments.shape + " " + arguments.dtype +
                             " @" + arguments.address + " " + arguments.layout + " " +
                             arguments.mode;
    Bytes source(static_cast<std::size_t>(flat.size_bytes()));
    for (auto& b : source) b = static_cast<std::byte>(rng());
    const Bytes before(static_cast<std::size_t>(image.size_bytes()), std::byte{0xAA});
    Bytes lmem = before;
    const int threads = 1 + trial % 2;
    plan(flat, image, {.threads = threads, .fill_bits = 0}).execute(source, lmem);
    for (int64_t offset = 0; offset < image.size_elements(); ++offset) {
      const auto index = image.logical_index(offset);
      if (index) {
        ASSERT_EQ(read(lmem, offset, bits), read(source, flat.linear_index(*index), bits))
            << what << " at " << offset;
      } else {
        const Bytes got = read(lmem, offset, bits);
        // Either the tensor's own padding (fill 0) or another tensor's bytes (untouched).
        ASSERT_TRUE(got == Bytes(got.size(), std::byte{0}) || got == read(before, offset, bits))
            << what;
      }
    }
    Bytes kept = before;
    plan(flat, image, {.threads = 3 - threads, .keep_padding = true}).execute(source, kept);
    for (int64_t offset = 0; offset < image.size_elements(); ++offset) {
      if (!image.logical_index(offset)) {
        ASSERT_EQ(read(kept, offset, bits), read(before, offset, bits)) << what;
      }
    }
    Bytes back(source.size(), std::byte{0});
    plan(image, flat, {.threads = threads}).execute(lmem, back);
    ASSERT_EQ(back, source) << what;
    ++converted;
  }
  EXPECT_GT(converted, 60);
}

}  // namespace
}  // namespace tessera::relayout
