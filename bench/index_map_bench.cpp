// Offsets per second for the index map: random linear_index calls vs. the logical walker.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "tessera/index_map.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace {

const char* const kShapes[] = {
    "f32[1024,1024]{1,0:T(8,128)}",
    "bf16[1024,1024]{1,0:T(8,128)(2,1)}",
    "f32[64,32,16,32]{3,2,1,0:T(8,128)}",
};

// 4096 random valid indices (a power of two, so the loop can wrap with a mask).
std::vector<std::vector<int64_t>> random_indices(const tessera::IndexMap& map) {
  std::mt19937_64 rng(42);
  std::vector<std::vector<int64_t>> indices(4096);
  for (auto& idx : indices) {
    for (int64_t d : map.dims())
      idx.push_back(static_cast<int64_t>(rng() % static_cast<uint64_t>(d)));
  }
  return indices;
}

void BM_LinearIndexRandom(benchmark::State& state) {
  const tessera::xla::TiledLayout layout(tessera::xla::parse_shape(kShapes[state.range(0)]));
  const auto& map = layout.index_map();
  const auto indices = random_indices(map);
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(map.linear_index(indices[i++ & 4095]));
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(kShapes[state.range(0)]);
}
BENCHMARK(BM_LinearIndexRandom)->DenseRange(0, 2);

// The spec's formula applied level by level (the reference): the peer the digit form must beat.
void BM_SpecFormulaRandom(benchmark::State& state) {
  const tessera::xla::TiledLayout layout(tessera::xla::parse_shape(kShapes[state.range(0)]));
  const auto indices = random_indices(layout.index_map());
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(layout.spec_linear_index(indices[i++ & 4095]));
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(kShapes[state.range(0)]);
}
BENCHMARK(BM_SpecFormulaRandom)->DenseRange(0, 2);

void BM_LogicalWalk(benchmark::State& state) {
  const tessera::xla::TiledLayout layout(tessera::xla::parse_shape(kShapes[state.range(0)]));
  const auto& map = layout.index_map();
  for (auto _ : state) {
    int64_t sum = 0;
    for (tessera::LogicalWalker walk(map); !walk.done(); walk.next()) sum += walk.offset();
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * map.logical_elements());
  state.SetLabel(kShapes[state.range(0)]);
}
BENCHMARK(BM_LogicalWalk)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);

}  // namespace
