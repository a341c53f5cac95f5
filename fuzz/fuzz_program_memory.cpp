// Fuzzes program memory: the module header and stack frames, the buffers and live ranges of any
// module text, and the readers of the compiler's buffer assignment and memory-usage report. Any
// text must be read without a crash; a file of the compiler's it cannot read is an Error, nothing
// else escapes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tessera/error.h"
#include "tessera/inputs/hlo_instructions.h"
#include "tessera/inputs/program_memory.h"
#include "tessera/inputs/xla_dump_files.h"
#include "tessera/tpu/target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size > 65536) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  using namespace tessera::inputs;
  const ProgramMemory memory =
      program_memory(text, parse_hlo_module(text), tessera::tpu::parse_tpu_target("tpu-v5e"));
  // The figures always add up, and nothing alive at the peak is larger than the peak.
  if (memory.hbm.temp_size_in_bytes < 0) __builtin_trap();
  for (const ProgramBuffer& b : memory.live_at_peak) {
    if (b.kind == BufferKind::kTemporary && b.size_bytes > memory.hbm.temp_size_in_bytes)
      __builtin_trap();
  }
  program_memory_json(memory).dump();
  try {
    program_memory_json(program_memory_from_buffer_assignment(text)).dump();
  } catch (const tessera::Error&) {
  }
  try {
    for (const auto& [space, total] : memory_usage_report_totals(text)) {
      if (space < 0 || total < 0) __builtin_trap();
    }
  } catch (const tessera::Error&) {
  }
  return 0;
}
