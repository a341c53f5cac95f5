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
// instructions' results.
#include <cctype>
#include <string>

#include "hlo_buffers.h"
#include "tessera/inputs/input_arrays.h"
#include "tessera/inputs/shapes_in_text.h"
#include "tessera/integer_text.h"

namespace tessera::inputs {
namespace {

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' || c == '-' ||
         c == '%';
}

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

void read_entry_layout(InputReading& reading, std::string_view line, int64_t number,
                       HloModuleFacts& facts) {
  const std::size_t at = line.find("entry_computation_layout={");
  if (at == std::string_view::npos) return;
  std::size_t pos = at + 26;
  const std::string place = "entry_computation_layout";
  if (pos < line.size() && line[pos] == '(') {
    ++pos;
    for (int parameter = 0; pos < line.size() && line[pos] != ')'; ++parameter) {
      auto shapes = read_shape_at(line, pos);
      if (!shapes) break;
      add(reading, *shapes, "parameter " + std::to_string(parameter), place, number, facts);
      while (pos < line.size() && (line[pos] == ',' || line[pos] == ' ')) ++pos;
    }
    if (pos < line.size() && line[pos] == ')') ++pos;
  }
  if (line.substr(pos, 2) == "->") {
    pos += 2;
    if (auto shapes = read_shape_at(line, pos)) {
      add(reading, *shapes, "result", place, number, facts);
      return;
    }
  }
  reading.warnings.push_back("line " + std::to_string(number) +
                             ": entry_computation_layout read only in part");
}

}  // namespace

InputReading read_hlo_module(std::string_view text) {
  InputReading reading;
  reading.format = InputFormat::kHloModule;
  const std::vector<std::string> lines = input_lines(text);
  HloModuleFacts facts;
  std::string computation;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    const int64_t number = static_cast<int64_t>(i) + 1;
    if (line.find("HloModule ") != std::string_view::npos) {
      read_entry_layout(reading, line, number, facts);
      continue;
    }
    std::string_view t = trim(line);
    // A computation header: "[ENTRY ]%name (params) -> result {".
    if (!t.empty() && t.back() == '{' && t.find(" = ") == std::string_view::npos) {
      const bool entry = t.substr(0, 6) == "ENTRY ";
      if (entry) t.remove_prefix(6);
      std::size_t end = 0;
      while (end < t.size() && is_name_char(t[end])) ++end;
      computation = std::string(t.substr(t.front() == '%' ? 1 : 0, end - (t.front() == '%')));
      if (entry) facts.entry = computation;
      continue;
    }
    if (t.substr(0, 5) == "ROOT ") t.remove_prefix(5);
    const std::size_t eq = t.find(" = ");
    if (eq == std::string_view::npos || eq == 0) continue;
    std::string_view name = t.substr(0, eq);
    bool plain = true;
    for (char c : name) plain = plain && is_name_char(c);
    if (!plain) continue;
    if (name.front() == '%') name.remove_prefix(1);
    std::size_t pos = eq + 3;
    if (auto shapes = read_shape_at(t, pos)) {
      const std::string instruction(name);
      const std::string opcode = read_opcode_and_callees(t.substr(pos), instruction, facts);
      add(reading, *shapes, instruction,
          computation.empty() ? "module" : "computation " + computation, number, facts, computation,
          opcode);
    } else if (t.substr(eq + 3, 6) != "token[") {
      reading.warnings.push_back("line " + std::to_string(number) +
                                 ": cannot read the result shape of " + std::string(name));
    }
    if (reading.truncated) break;
  }
  mark_shared_buffers(reading, facts);
  if (reading.arrays.empty()) reading.warnings.push_back("no instruction with a shape found");
  return reading;
}

}  // namespace tessera::inputs
