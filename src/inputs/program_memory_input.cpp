// Which text `tessera explain FILE` can tell a program's memory from, and the compiler's buffer
// assignment found beside a dumped module.
#include <filesystem>

#include "tessera/inputs/input_arrays.h"
#include "tessera/inputs/program_memory.h"

namespace tessera::inputs {

std::string buffer_assignment_beside(const std::string& module_path) {
  static constexpr std::string_view kModule = "after_optimizations.txt";
  if (!module_path.ends_with(kModule)) return "";
  return module_path.substr(0, module_path.size() - kModule.size()) +
         "after_optimizations-buffer-assignment.txt";
}

std::optional<ProgramMemory> program_memory_of_input(std::string_view text, const std::string& path,
                                                     const tpu::TpuTarget& target) {
  const std::optional<std::string> converted = utf8_input_text(text);
  const std::string_view utf8 = converted ? std::string_view(*converted) : text;
  if (is_buffer_assignment(utf8)) {
    ProgramMemory memory = program_memory_from_buffer_assignment(utf8);
    memory.fixes = peak_fixes(memory, target, kFixedBuffers);
    return memory;
  }
  if (utf8.find("HloModule") == std::string_view::npos) return std::nullopt;
  const HloModuleText module = parse_hlo_module(utf8);
  if (module.instructions.empty()) return std::nullopt;
  ProgramMemory memory = program_memory(utf8, module, target);
  const std::string beside = buffer_assignment_beside(path);
  std::error_code error;
  if (!beside.empty() && std::filesystem::is_regular_file(beside, error)) {
    const std::string assignment = read_input_text(beside);
    if (is_buffer_assignment(assignment)) {
      memory = with_buffer_assignment(std::move(memory),
                                      program_memory_from_buffer_assignment(assignment));
    }
  }
  return memory;
}

nlohmann::ordered_json memory_analysis_json(std::string_view text, const std::string& path,
                                            const tpu::TpuTarget& target) {
  const std::optional<ProgramMemory> memory = program_memory_of_input(text, path, target);
  return memory ? program_memory_json(*memory) : nlohmann::ordered_json(nullptr);
}

}  // namespace tessera::inputs
