// Program memory of a 100,000-instruction scheduled module (the reader's limit, kMaxInputArrays):
// parsing, one buffer per value, live ranges and the peak, and the JSON of `tessera explain
// MODULE --json` (docs/notes/2026-11-27-program-memory.md). It must stay well under 2 s.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <random>
#include <string>

#include "tessera/inputs/hlo_instructions.h"
#include "tessera/inputs/program_memory.h"
#include "tessera/tpu/target.h"

namespace {

// A scheduled module like an optimized training step: parameters, prefetches into VMEM
// (copy-start/copy-done), fusions in HBM that read values made far back, a while loop over a
// carry, with metadata and a stack frame table, `instructions` instructions in all.
std::string scheduled_module(int instructions) {
  std::mt19937_64 random(46);
  std::string text =
      "HloModule jit_step, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias) }\n\n"
      "FileNames\n1 \"train.py\"\n\nFunctionNames\n1 \"step\"\n\nFileLocations\n"
      "1 {file_name_id=1 function_name_id=1 line=10 end_line=10 column=1 end_column=9}\n\n"
      "StackFrames\n1 {file_location_id=1 parent_frame_id=1}\n\n"
      "%body (p: (s32[], f32[512,1024])) -> (s32[], f32[512,1024]) {\n"
      "  %p = (s32[]{:T(128)}, f32[512,1024]{1,0:T(8,128)}) parameter(0)\n"
      "  %i = s32[]{:T(128)} get-tuple-element(%p), index=0\n"
      "  %v = f32[512,1024]{1,0:T(8,128)} get-tuple-element(%p), index=1\n"
      "  %n = f32[512,1024]{1,0:T(8,128)} negate(%v)\n"
      "  ROOT %r = (s32[]{:T(128)}, f32[512,1024]{1,0:T(8,128)}) tuple(%i, %n)\n}\n\n"
      "%cond (q: (s32[], f32[512,1024])) -> pred[] {\n"
      "  %q = (s32[]{:T(128)}, f32[512,1024]{1,0:T(8,128)}) parameter(0)\n"
      "  ROOT %k = pred[]{:T(512)} constant(true)\n}\n\n"
      "ENTRY %main (a: f32[512,1024], b: f32[512,1024]) -> f32[512,1024] {\n"
      "  %a = f32[512,1024]{1,0:T(8,128)} parameter(0), metadata={op_name=\"a\"}\n"
      "  %b = f32[512,1024]{1,0:T(8,128)} parameter(1), metadata={op_name=\"b\"}\n";
  std::string last = "a";
  int made = 2;
  for (int i = 0; made < instructions - 5; ++i, ++made) {
    const int back = static_cast<int>(random() % 50);
    const std::string other = i > back ? fmt::format("f.{}", i - 1 - back) : "b";
    if (i % 10 == 0) {
      text += fmt::format(
          "  %c.{0} = (f32[64,1024]{{1,0:T(8,128)S(1)}}, f32[64,1024]{{1,0:T(8,128)}}, "
          "u32[]{{:S(2)}}) copy-start(%{1})\n  %f.{0} = f32[64,1024]{{1,0:T(8,128)S(1)}} "
          "copy-done(%c.{0})\n",
          i, last);
      ++made;
    } else {
      text += fmt::format(
          "  %f.{} = f32[{},1024]{{1,0:T(8,128)}} fusion(%{}, %{}), kind=kLoop, calls=%fused, "
          "metadata={{op_name=\"jit(step)/add\" stack_frame_id=1}}\n",
          i, 8 * (1 + random() % 64), last, other);
    }
    last = fmt::format("f.{}", i);
  }
  text +=
      "  %z = s32[]{:T(128)} constant(0)\n"
      "  %t = (s32[]{:T(128)}, f32[512,1024]{1,0:T(8,128)}) tuple(%z, %b)\n"
      "  %w = (s32[]{:T(128)}, f32[512,1024]{1,0:T(8,128)}) while(%t), condition=%cond, "
      "body=%body\n"
      "  %o = f32[512,1024]{1,0:T(8,128)} get-tuple-element(%w), index=1\n"
      "  ROOT %s = f32[512,1024]{1,0:T(8,128)} add(%o, %" +
      last + ")\n}\n";
  return text;
}

void BM_ProgramMemory(benchmark::State& state) {
  const std::string text = scheduled_module(100000);
  for (auto _ : state) {
    const auto module = tessera::inputs::parse_hlo_module(text);
    const auto memory =
        tessera::inputs::program_memory(text, module, tessera::tpu::parse_tpu_target("tpu-v5e"));
    benchmark::DoNotOptimize(tessera::inputs::program_memory_json(memory).dump().size());
  }
  state.SetItemsProcessed(state.iterations() * 100000);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
  state.SetLabel(fmt::format("100,000-instruction scheduled module, {:.1f} MB",
                             static_cast<double>(text.size()) / 1e6));
}
BENCHMARK(BM_ProgramMemory)->Unit(benchmark::kMillisecond);

}  // namespace
