// HLO module text (`--xla_dump_to` files, `jitted.lower().compile().as_text()`):
//   HloModule m, entry_computation_layout={(f32[8,128]{1,0})->(f32[8]{0}, s32[])}
//   %fused_computation.1 (p: f32[8,128]) -> f32[8] { ... }
//   ENTRY %main.9 (Arg_0.1: f32[8,128]) -> (f32[8], s32[]) {
//     %Arg_0.1 = f32[8,128]{1,0} parameter(0)
//     ROOT %tuple.8 = (f32[8]{0}, s32[]) tuple(%fusion.2, %c.3)
//   }
// Each instruction's result is read (a tuple as its elements, named "tuple.8{0}", "tuple.8{1}"),
// in every computation (fused and called ones too, named by `place`), plus the entry computation
// layout's parameters and results. Operand shapes are not read again: they are other
// instructions' results. The instructions come from parse_hlo_module (hlo_instructions.h); which
// arrays share a buffer, from hlo_buffers.h.
#include <string>

#include "hlo_buffers.h"
#include "tessera/inputs/hlo_instructions.h"
#include "tessera/inputs/input_arrays.h"

namespace tessera::inputs {
namespace {

// `computation` and `opcode` are recorded for hlo_buffers.h ("" for the entry layout).
void add(InputReading& reading, const std::vector<ShapeToken>& shapes, const std::string& name,
         const std::string& place, int64_t line, HloModuleFacts& facts,
         const std::string& computation = "", const std::string& opcode = "") {
  for (const ShapeToken& s : shapes) {
    if (reading.arrays.size() >= kMaxInputArrays) {
      reading.truncated = true;
      return;
    }
    reading.arrays.push_back({s.text, name + s.index, place, line, {}, {}, {}, {}});
    facts.computation.push_back(computation);
    facts.opcode.push_back(opcode);
  }
}

}  // namespace

InputReading read_hlo_module(std::string_view text) {
  HloModuleText module = parse_hlo_module(text);
  InputReading reading;
  reading.format = InputFormat::kHloModule;
  HloModuleFacts facts;
  for (const HloComputationHeader& header : module.computations) {
    if (header.entry) facts.entry = header.name;
  }
  const std::string entry_place = "entry_computation_layout";
  for (std::size_t p = 0; p < module.entry_parameters.size(); ++p) {
    add(reading, module.entry_parameters[p], "parameter " + std::to_string(p), entry_place,
        module.entry_layout_line, facts);
  }
  add(reading, module.entry_result, "result", entry_place, module.entry_layout_line, facts);
  for (const HloInstruction& instruction : module.instructions) {
    record_callees(instruction, facts);
    add(reading, instruction.result, instruction.name,
        instruction.computation.empty() ? "module" : "computation " + instruction.computation,
        instruction.line, facts, instruction.computation, instruction.opcode);
    if (reading.truncated) break;
  }
  reading.warnings = std::move(module.warnings);
  mark_shared_buffers(reading, facts);
  if (reading.arrays.empty()) reading.warnings.push_back("no instruction with a shape found");
  return reading;
}

}  // namespace tessera::inputs
