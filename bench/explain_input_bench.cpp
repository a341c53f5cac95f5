// `tessera explain FILE` at its documented limits: arrays per second for rank-5 shapes
// explained with today's advice (device_rewrites.h), as text and as JSON, and bytes per second
// for a training log. The limits are 100,000 arrays (kMaxInputArrays) and 1 GiB of text; the
// 10,000-array and 10 MB inputs here scale linearly (docs/notes/2026-11-27-explain-at-scale.md).
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <random>
#include <string>

#include "tessera/inputs/input_explanation.h"

namespace {

// Random rank-5 shapes, one a line: device arrays (no layout) or, with `written`, row-major.
std::string random_shapes(int count, bool written) {
  std::mt19937_64 random(39);
  const char* const types[] = {"f32", "bf16", "s8", "pred", "s32"};
  std::string text;
  for (int i = 0; i < count; ++i) {
    text += fmt::format("{}[{},{},{},{},{}]{}\n", types[random() % 5], 1 + random() % 300,
                        1 + random() % 300, 1 + random() % 300, 1 + random() % 300,
                        1 + random() % 300, written ? "{4,3,2,1,0}" : "");
  }
  return text;
}

// A glog-prefixed training log: one line in ten names one of 40 activation shapes.
std::string training_log(std::size_t bytes) {
  std::mt19937_64 random(7);
  std::string text;
  for (int i = 0; text.size() < bytes; ++i) {
    text += fmt::format("2026-11-27 09:00:00.{:06d}: I 1578 train.py:{}] step {}: ", i % 1000000,
                        i % 500, i);
    if (random() % 10 == 0) {
      text += fmt::format("activation bf16[16,{},{}]{{2,1,0:T(8,128)(2,1)}} on device 0\n",
                          128 << (random() % 4), 3 + random() % 40);
    } else {
      text += fmt::format("loss {:.6f} tokens/s {}\n", 1.0 / (1 + i % 97), random() % 90000);
    }
  }
  return text;
}

void BM_ExplainShapes(benchmark::State& state) {
  const bool written = state.range(0) != 0;
  const bool json = state.range(1) != 0;
  const std::string text = random_shapes(10000, written);
  for (auto _ : state) {
    const auto e = tessera::inputs::explain_input(tessera::inputs::read_input(text), {});
    std::size_t out = 0;
    if (json) {
      tessera::inputs::write_input_explanation_json([&](std::string_view s) { out += s.size(); }, e,
                                                    {});
    } else {
      out = tessera::inputs::input_explanation_text(e, 20).size();
    }
    benchmark::DoNotOptimize(out);
  }
  state.SetItemsProcessed(state.iterations() * 10000);
  state.SetLabel(fmt::format("10,000 rank-5 {}, {}", written ? "row-major arrays" : "device arrays",
                             json ? "JSON" : "text"));
}
BENCHMARK(BM_ExplainShapes)->ArgsProduct({{0, 1}, {0, 1}})->Unit(benchmark::kMillisecond);

void BM_ExplainLog(benchmark::State& state) {
  const std::string text = training_log(std::size_t{10} << 20);
  for (auto _ : state) {
    const auto e = tessera::inputs::explain_input(tessera::inputs::read_input(text), {});
    benchmark::DoNotOptimize(tessera::inputs::input_explanation_text(e, 20).size());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
  state.SetLabel("10 MB training log, 1 line in 10 with a shape");
}
BENCHMARK(BM_ExplainLog)->Unit(benchmark::kMillisecond);

}  // namespace
