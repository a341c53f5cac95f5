// Which text `tessera explain FILE` can tell a program's memory from, and the compiler's own
// files read with it (its buffer assignment and memory-usage report, beside the module or named).
#include <fmt/format.h>

#include "tessera/explain/layout_explanation.h"
#include "tessera/inputs/input_arrays.h"
#include "tessera/inputs/program_memory.h"
#include "tessera/inputs/xla_dump_files.h"

namespace tessera::inputs {
namespace {

// The report's totals beside the figures: what the compiler allocated in each space.
void add_allocated_bytes(ProgramMemory& memory, const std::string& report_path) {
  const auto totals = memory_usage_report_totals(read_input_text(report_path));
  for (MemorySpaceFigures& space : memory.memory_spaces) {
    if (const auto total = totals.find(space.memory_space); total != totals.end()) {
      space.allocated_bytes = total->second;
    }
  }
  if (const auto hbm = totals.find(0); hbm != totals.end()) {
    memory.notes.push_back(fmt::format(
        "the compiler's memory-usage report: {} allocated in HBM (its index tables, constants "
        "and scalars included)",
        explain::human_bytes(hbm->second)));
  }
}

}  // namespace

std::optional<ProgramMemory> program_memory_of_dump(std::string_view text,
                                                    const XlaDumpFiles& files,
                                                    const tpu::TpuTarget& target) {
  const std::optional<std::string> converted = utf8_input_text(text);
  const std::string_view utf8 = converted ? std::string_view(*converted) : text;
  std::optional<ProgramMemory> memory;
  if (is_buffer_assignment(utf8)) {
    memory = program_memory_from_buffer_assignment(utf8);
    memory->fixes = peak_fixes(*memory, target, kFixedBuffers);
  } else {
    if (utf8.find("HloModule") == std::string_view::npos) return std::nullopt;
    const HloModuleText module = parse_hlo_module(utf8);
    if (module.instructions.empty()) return std::nullopt;
    memory = program_memory(utf8, module, target);
    if (!files.buffer_assignment.empty()) {
      const std::string assignment = read_input_text(files.buffer_assignment);
      if (is_buffer_assignment(assignment)) {
        memory = with_buffer_assignment(std::move(*memory),
                                        program_memory_from_buffer_assignment(assignment));
      }
    }
  }
  if (!files.memory_usage_report.empty()) add_allocated_bytes(*memory, files.memory_usage_report);
  return memory;
}

std::optional<ProgramMemory> program_memory_of_input(std::string_view text, const std::string& path,
                                                     const tpu::TpuTarget& target) {
  return program_memory_of_dump(text, dump_files_beside(path), target);
}

nlohmann::ordered_json memory_analysis_json(std::string_view text, const XlaDumpFiles& files,
                                            const tpu::TpuTarget& target) {
  const std::optional<ProgramMemory> memory = program_memory_of_dump(text, files, target);
  return memory ? program_memory_json(*memory) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json memory_analysis_json(std::string_view text, const std::string& path,
                                            const tpu::TpuTarget& target) {
  return memory_analysis_json(text, dump_files_beside(path), target);
}

}  // namespace tessera::inputs
