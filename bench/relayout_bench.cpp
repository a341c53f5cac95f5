// Relayout speed against the physical limit (BM_Copy), oneDNN's reorder and the per-element
// formula. Every benchmark of a case counts the same bytes, the case's logical bytes
// read + written, so ratios of bytes_per_second are ratios of time. docs/performance.md ("Method"):
// buffers are huge-page backed and pre-faulted outside the timed loop; compare only within one run.
//
//   tessera_bench --benchmark_filter='^BM_(Copy|Relayout|OneDNN)/'
//     --benchmark_enable_random_interleaving=true --benchmark_repetitions=5   (one command line)
//
// BM_Relayout is the planner's choice (planner.h): the wisdom `tessera tune` wrote for this host,
// else the model; its label names the variant and where it came from. BM_Variant/<case>/<variant>
// forces each candidate variant of the case's kernel class, and BM_TransposeCeiling/<case> moves
// the same lines as the transposes without transposing them (the access pattern's own limit).
// TESSERA_VARIANT=<name> forces a variant on BM_Relayout too (A/B runs), TESSERA_WISDOM=<file>
// reads another wisdom file (empty: none).
//
// Every case also runs on 1 GiB (<case>_1GiB, DRAM-bound). One case's buffers are held at a time
// (3 GiB for a 1 GiB case), allocated when a benchmark of that case starts.
//
// Threads: 2, or TESSERA_BENCH_THREADS, for tessera, the copies and oneDNN (OpenMP) alike. The work
// runs on several threads, so bytes_per_second is computed here from wall-clock time (Google
// Benchmark's own rates use the main thread's CPU time); the names stay exactly BM_<kind>/<case>.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_support.h"
#include "relayout/plan_internals.h"
#include "tessera/relayout/layout_operand.h"
#include "tessera/relayout/relayout_plan.h"
#include "tessera/relayout/streaming_copy.h"

#ifdef TESSERA_HAVE_ONEDNN
#include <oneapi/dnnl/dnnl.hpp>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

namespace {

using tessera::IndexMap;
using tessera::bench::bench_threads;
using tessera::bench::HugeBuffer;
using tessera::bench::parallel_for;
using tessera::bench::report_bytes;
using tessera::bench::seconds_since;
namespace relayout = tessera::relayout;

// oneDNN sees a case as one strided array over the common refinement (dims and both strides, in
// elements), written out by hand from the two layouts.
struct StridedView {
  int element_bytes = 0;  // 0: oneDNN cannot express the case
  std::vector<int64_t> dims, source_strides, destination_strides;
};

struct RelayoutCase {
  const char* name;
  const char* from;
  const char* to;
  StridedView onednn;
};

const RelayoutCase kCases[] = {
    {"f32_rowmajor_to_T8x128",
     "f32[4096,4096]{1,0}",
     "f32[4096,4096]{1,0:T(8,128)}",
     {4, {512, 8, 32, 128}, {32768, 4096, 128, 1}, {32768, 128, 1024, 1}}},
    {"f32_T8x128_to_rowmajor",
     "f32[4096,4096]{1,0:T(8,128)}",
     "f32[4096,4096]{1,0}",
     {4, {512, 8, 32, 128}, {32768, 128, 1024, 1}, {32768, 4096, 128, 1}}},
    {"bf16_rowmajor_to_T8x128_2x1",
     "bf16[4096,8192]{1,0}",
     "bf16[4096,8192]{1,0:T(8,128)(2,1)}",
     {2, {512, 4, 2, 64, 128}, {65536, 16384, 8192, 128, 1}, {65536, 256, 1, 1024, 2}}},
    {"s8_rowmajor_to_T32x128_4x1",
     "s8[8192,8192]{1,0}",
     "s8[8192,8192]{1,0:T(32,128)(4,1)}",
     {1, {256, 8, 4, 64, 128}, {262144, 32768, 8192, 128, 1}, {262144, 512, 1, 4096, 4}}},
    {"f32_transpose",
     "f32[4096,4096]{1,0}",
     "f32[4096,4096]{0,1}",
     {4, {4096, 4096}, {4096, 1}, {1, 4096}}},
    {"f32_T8x128_to_transposed_T8x128",
     "f32[4096,4096]{1,0:T(8,128)}",
     "f32[4096,4096]{0,1:T(8,128)}",
     {4,
      {32, 16, 8, 32, 16, 8},
      {524288, 32768, 128, 1024, 8, 1},
      {1024, 8, 1, 524288, 32768, 128}}},
    {"pred_rowmajor_to_T32x128_32x1_E1",
     "pred[8192,8192]{1,0}",
     "pred[8192,8192]{1,0:T(32,128)(32,1)E(1)}",
     {}},
    {"f32_unaligned_to_T8x128", "f32[4000,4000]{1,0}", "f32[4000,4000]{1,0:T(8,128)}", {}},
    // The whole 32 MiB local memory image of a BM1684 (64 NPUs x 512 KiB) as the destination.
    {"f32_nchw_to_npu_aligned",
     "f32[4,256,56,56]{3,2,1,0}",
     "npu:bm1684:4,256,56,56:f32:0:aligned",
     {}},
};

// The same nine cases with 1 GiB sources (16x the elements; the unaligned case stays unaligned:
// 16380 is neither a multiple of 8 nor of 128), so that nothing fits in any cache
// (docs/performance.md, "Method": 64 MiB fits a reported L3). Named <case>_1GiB. The NPU image is a
// made-up device of 64 NPUs x 16 MiB: no real local memory holds 1 GiB.
const RelayoutCase kCases1GiB[] = {
    {"f32_rowmajor_to_T8x128_1GiB",
     "f32[16384,16384]{1,0}",
     "f32[16384,16384]{1,0:T(8,128)}",
     {4, {2048, 8, 128, 128}, {131072, 16384, 128, 1}, {131072, 128, 1024, 1}}},
    {"f32_T8x128_to_rowmajor_1GiB",
     "f32[16384,16384]{1,0:T(8,128)}",
     "f32[16384,16384]{1,0}",
     {4, {2048, 8, 128, 128}, {131072, 128, 1024, 1}, {131072, 16384, 128, 1}}},
    // No oneDNN peer: its bf16 reorder of this case runs at 0.002 of a copy at 64 MiB (about
    // 80 s per 1 GiB iteration here).
    {"bf16_rowmajor_to_T8x128_2x1_1GiB",
     "bf16[16384,32768]{1,0}",
     "bf16[16384,32768]{1,0:T(8,128)(2,1)}",
     {}},
    {"s8_rowmajor_to_T32x128_4x1_1GiB",
     "s8[32768,32768]{1,0}",
     "s8[32768,32768]{1,0:T(32,128)(4,1)}",
     {1, {1024, 8, 4, 256, 128}, {1048576, 131072, 32768, 128, 1}, {1048576, 512, 1, 4096, 4}}},
    {"f32_transpose_1GiB",
     "f32[16384,16384]{1,0}",
     "f32[16384,16384]{0,1}",
     {4, {16384, 16384}, {16384, 1}, {1, 16384}}},
    {"f32_T8x128_to_transposed_T8x128_1GiB",
     "f32[16384,16384]{1,0:T(8,128)}",
     "f32[16384,16384]{0,1:T(8,128)}",
     {4,
      {128, 16, 8, 128, 16, 8},
      {2097152, 131072, 128, 1024, 8, 1},
      {1024, 8, 1, 2097152, 131072, 128}}},
    {"pred_rowmajor_to_T32x128_32x1_E1_1GiB",
     "pred[32768,32768]{1,0}",
     "pred[32768,32768]{1,0:T(32,128)(32,1)E(1)}",
     {}},
    {"f32_unaligned_to_T8x128_1GiB", "f32[16380,16380]{1,0}", "f32[16380,16380]{1,0:T(8,128)}", {}},
    {"f32_nchw_to_npu_aligned_1GiB",
     "f32[64,1024,64,64]{3,2,1,0}",
     "npu:npus=64,lmem=16777216,align=64:64,1024,64,64:f32:0:aligned",
     {}},
};

// The options of BM_Relayout's plan: the benchmark's threads, TESSERA_VARIANT's variant if set.
relayout::RelayoutOptions relayout_options() {
  const char* variant = std::getenv("TESSERA_VARIANT");
  return {.threads = bench_threads(),
          .variant = relayout::ForcedVariant::parse(variant != nullptr ? variant : "")};
}

// The buffers of the case being measured; one case is held at a time.
struct CaseData {
  explicit CaseData(const RelayoutCase& c)
      : from(relayout::parse_layout_operand(c.from)),
        to(relayout::parse_layout_operand(c.to)),
        source(static_cast<std::size_t>(from.map->size_bytes())),
        destination(static_cast<std::size_t>(to.map->size_bytes())),
        copy_destination(static_cast<std::size_t>(from.map->size_bytes())),
        plan(relayout::plan(*from.map, *to.map, relayout_options())) {
    std::mt19937_64 rng(1);
    for (std::size_t i = 0; i + 8 <= source.size; i += 8) {
      const uint64_t v = rng();
      std::memcpy(source.data + i, &v, 8);
    }
    const IndexMap& a = *from.map;
    const IndexMap& b = *to.map;
    logical_bytes = a.logical_elements() * (a.element_bits() + b.element_bits()) / 8;
  }
  relayout::LayoutOperand from, to;
  HugeBuffer source, destination, copy_destination;
  relayout::RelayoutPlan plan;
  int64_t logical_bytes = 0;
};

CaseData& case_data(const RelayoutCase& c) {
  static std::unique_ptr<CaseData> current;
  static const RelayoutCase* held = nullptr;
  if (held != &c) {
    current.reset();
    current = std::make_unique<CaseData>(c);
    held = &c;
  }
  return *current;
}

void BM_Copy(benchmark::State& state, const RelayoutCase* c) {
  CaseData& data = case_data(*c);
  const auto n = static_cast<int64_t>(data.source.size);
  const auto copy = [&](bool streaming) {
    const auto start = std::chrono::steady_clock::now();
    parallel_for(n, 4096, [&](int64_t begin, int64_t end) {
      if (streaming) {
        relayout::streaming_copy(data.copy_destination.data + begin, data.source.data + begin,
                                 static_cast<std::size_t>(end - begin));
      } else {
        std::memcpy(data.copy_destination.data + begin, data.source.data + begin,
                    static_cast<std::size_t>(end - begin));
      }
    });
    return seconds_since(start);
  };
  // Both copies every iteration; the faster one over the whole run is the ceiling (a per-iteration
  // minimum would favour the baseline on a noisy machine).
  double plain = 0;
  double streamed = 0;
  for (auto _ : state) {
    plain += copy(false);
    streamed += copy(true);
    benchmark::ClobberMemory();
  }
  report_bytes(state, data.logical_bytes, std::min(plain, streamed));
}

// `plan` run on the case's buffers.
void run_plan(benchmark::State& state, CaseData& data, const relayout::RelayoutPlan& plan) {
  state.SetLabel(relayout::main_variant(plan));
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    plan.execute(data.source.span(), data.destination.span());
    benchmark::ClobberMemory();
  }
  report_bytes(state, data.logical_bytes, seconds_since(start));
}

void BM_Relayout(benchmark::State& state, const RelayoutCase* c) {
  CaseData& data = case_data(*c);
  run_plan(state, data, data.plan);
}

// The case with one variant forced (the planner's candidates, kernel_variant.h).
void BM_Variant(benchmark::State& state, const RelayoutCase* c, const std::string& variant) {
  CaseData& data = case_data(*c);
  run_plan(state, data,
           relayout::plan(
               *data.from.map, *data.to.map,
               {.threads = bench_threads(), .variant = relayout::ForcedVariant::parse(variant)}));
}

// The planner's plan with the transposes' shuffles left out: the same lines read and written in
// the same order, unchanged (plan_internals.h). Its output is not the conversion.
void BM_TransposeCeiling(benchmark::State& state, const RelayoutCase* c) {
  CaseData& data = case_data(*c);
  run_plan(state, data,
           relayout::plan_without_shuffle(*data.from.map, *data.to.map, relayout_options()));
}

// The per-element index formula: every logical index through both layouts' linear_index.
void BM_Naive(benchmark::State& state, const RelayoutCase* c) {
  CaseData& data = case_data(*c);
  const IndexMap& a = *data.from.map;
  const IndexMap& b = *data.to.map;
  const int ab = a.element_bits();
  const int bb = b.element_bits();
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    std::memset(data.destination.data, 0, data.destination.size);  // the padding
    parallel_for(a.dims()[0], 32, [&](int64_t begin, int64_t end) {
      std::vector<int64_t> index(a.dims().size(), 0);
      for (index[0] = begin; index[0] < end;) {
        const int64_t from = a.linear_index(index);
        const int64_t to = b.linear_index(index);
        if (bb >= 8) {
          std::memcpy(data.destination.data + to * (bb / 8), data.source.data + from * (ab / 8),
                      static_cast<std::size_t>(bb / 8));
        } else {
          const auto bit = static_cast<unsigned>(data.source.data[from * ab / 8]) & 1u;
          data.destination.data[to / 8] |= static_cast<std::byte>(bit << (to % 8));
        }
        for (std::size_t k = index.size(); k-- > 0;) {
          if (++index[k] < a.dims()[k] || k == 0) break;
          index[k] = 0;
        }
      }
    });
    benchmark::ClobberMemory();
  }
  report_bytes(state, data.logical_bytes, seconds_since(start));
}

#ifdef TESSERA_HAVE_ONEDNN
void BM_OneDNN(benchmark::State& state, const RelayoutCase* c) {
  CaseData& data = case_data(*c);
  const StridedView& v = c->onednn;
#ifdef _OPENMP
  omp_set_num_threads(bench_threads());  // oneDNN's OpenMP runtime: as many threads as tessera
#endif
  const auto type = v.element_bytes == 4   ? dnnl::memory::data_type::f32
                    : v.element_bytes == 2 ? dnnl::memory::data_type::bf16
                                           : dnnl::memory::data_type::s8;
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  const dnnl::memory::desc from_desc(v.dims, type, v.source_strides);
  const dnnl::memory::desc to_desc(v.dims, type, v.destination_strides);
  dnnl::memory from(from_desc, engine, data.source.data);
  dnnl::memory to(to_desc, engine, data.destination.data);
  dnnl::reorder reorder(from, to);
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    reorder.execute(stream, from, to);
    stream.wait();
    benchmark::ClobberMemory();
  }
  report_bytes(state, data.logical_bytes, seconds_since(start));
}
#endif

void register_case(const RelayoutCase& c, bool with_naive) {
  const std::string name = c.name;
  benchmark::RegisterBenchmark(("BM_Copy/" + name).c_str(), BM_Copy, &c)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark(("BM_Relayout/" + name).c_str(), BM_Relayout, &c)
      ->Unit(benchmark::kMillisecond);
  // The candidates of the case's kernel class (planned without buffers, to learn the class).
  const relayout::LayoutOperand from = relayout::parse_layout_operand(c.from);
  const relayout::LayoutOperand to = relayout::parse_layout_operand(c.to);
  const relayout::KernelClass k =
      relayout::main_kernel_class(relayout::plan(*from.map, *to.map, {.threads = 1}));
  if (k != relayout::KernelClass::kNone) {
    for (const std::string& variant : relayout::variant_names(relayout::kernel_class_name(k))) {
      benchmark::RegisterBenchmark(("BM_Variant/" + name + "/" + variant).c_str(), BM_Variant, &c,
                                   variant)
          ->Unit(benchmark::kMillisecond);
    }
  }
  if (k == relayout::KernelClass::kTranspose || k == relayout::KernelClass::kTileTranspose) {
    benchmark::RegisterBenchmark(("BM_TransposeCeiling/" + name).c_str(), BM_TransposeCeiling, &c)
        ->Unit(benchmark::kMillisecond);
  }
#ifdef TESSERA_HAVE_ONEDNN
  if (c.onednn.element_bytes != 0) {
    benchmark::RegisterBenchmark(("BM_OneDNN/" + name).c_str(), BM_OneDNN, &c)
        ->Unit(benchmark::kMillisecond);
  }
#endif
  // About a second per iteration, so the default minimum time runs it once or twice.
  if (with_naive) {
    benchmark::RegisterBenchmark(("BM_Naive/" + name).c_str(), BM_Naive, &c)
        ->Unit(benchmark::kMillisecond);
  }
}

// TESSERA_BENCH_CASE="<from>;<to>" (two layouts as the CLI takes them) adds the case `custom`:
// a shape of your own beside the fixed ones, e.g. to see whether a size or a row length changes
// which variant runs fastest.
const RelayoutCase* custom_case() {
  static std::string from, to;
  static RelayoutCase custom{"custom", nullptr, nullptr, {}};
  const char* text = std::getenv("TESSERA_BENCH_CASE");
  if (text == nullptr || *text == '\0') return nullptr;
  const std::string both = text;
  const std::size_t split = both.find(';');
  if (split == std::string::npos) {
    throw std::invalid_argument("want \"<from>;<to>\", got \"" + both + "\"");
  }
  from = both.substr(0, split);
  to = both.substr(split + 1);
  custom.from = from.c_str();
  custom.to = to.c_str();
  return &custom;
}

const bool registered = [] {
  benchmark::AddCustomContext("tessera_host", relayout::host_description());
  const std::filesystem::path wisdom = relayout::default_wisdom_path();
  benchmark::AddCustomContext("tessera_wisdom", wisdom.empty() ? "none" : wisdom.string());
  for (const RelayoutCase& c : kCases) register_case(c, true);
  // No BM_Naive at 1 GiB: about 16 s per iteration.
  for (const RelayoutCase& c : kCases1GiB) register_case(c, false);
  try {
    if (const RelayoutCase* c = custom_case()) register_case(*c, false);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tessera_bench: TESSERA_BENCH_CASE: %s\n", e.what());
    std::exit(2);
  }
  return true;
}();

}  // namespace
