#include "tessera/inputs/hlo_instructions.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>

#include "tessera/inputs/input_arrays.h"
#include "tessera/integer_text.h"

namespace tessera::inputs {
namespace {

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' || c == '-' ||
         c == '%';
}

std::string bare_name(std::string_view name) {
  if (!name.empty() && name.front() == '%') name.remove_prefix(1);
  return std::string(name);
}

std::string line_warning(int64_t line, std::string_view what) {
  return "line " + std::to_string(line) + ": " + std::string(what);
}

// The end of the group opening at text[pos] (its matching closer + 1), skipping quoted strings
// and /* comments */; npos when it does not close on this line.
std::size_t group_end(std::string_view text, std::size_t pos) {
  int depth = 0;
  for (std::size_t i = pos; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
      }
      continue;
    }
    if (c == '(' || c == '{' || c == '[') ++depth;
    if ((c == ')' || c == '}' || c == ']') && --depth == 0) return i + 1;
  }
  return std::string_view::npos;
}

// Splits `text` at commas outside brackets, quotes and comments.
std::vector<std::string_view> split_top_level(std::string_view text) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '(' || c == '{' || c == '[' || c == '"') {
      const std::size_t end = c == '"' ? text.find('"', i + 1) : group_end(text, i);
      if (end == std::string_view::npos) break;  // unclosed: the rest is one part
      i = (c == '"' ? end + 1 : end) - 1;
    } else if (c == ',') {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  if (start < text.size()) parts.push_back(text.substr(start));
  return parts;
}

HloOperand read_operand(std::string_view text) {
  std::size_t pos = 0;
  skip_blanks(text, pos);
  text = trim(text.substr(pos));
  HloOperand operand;
  // The name is the last word; anything before it is the operand's shape.
  std::size_t begin = text.size();
  while (begin > 0 && is_name_char(text[begin - 1])) --begin;
  const std::string_view name = text.substr(begin);
  if (name.empty() || name.front() != '%') {
    // Dumps write names with '%', newer ones without: then a name is a word that is alone or
    // follows a shape ("f32[2]{0} param_0"), and does not start with a digit (a literal).
    const std::string_view before = trim(text.substr(0, begin));
    const bool after_shape =
        !before.empty() && (before.back() == ']' || before.back() == '}' || before.back() == ')');
    if ((!before.empty() && !after_shape) || name.empty() ||
        std::isdigit(static_cast<unsigned char>(name.front())) != 0) {
      return operand;  // a literal (constant(1)) or something else
    }
  }
  operand.name = bare_name(name);
  operand.shape = std::string(trim(text.substr(0, begin)));
  return operand;
}

void read_attributes(std::string_view text, HloInstruction& instruction) {
  for (std::string_view part : split_top_level(text)) {
    part = trim(part);
    const std::size_t eq = part.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    instruction.attributes.push_back(
        {std::string(trim(part.substr(0, eq))), std::string(trim(part.substr(eq + 1)))});
  }
}

// "[ROOT ]%name = SHAPE opcode(operands), attributes"; false when the line is not one.
bool read_instruction(std::string_view t, HloInstruction& instruction,
                      std::vector<std::string>& warnings) {
  if (t.substr(0, 5) == "ROOT ") {
    instruction.root = true;
    t.remove_prefix(5);
  }
  const std::size_t eq = t.find(" = ");
  if (eq == std::string_view::npos || eq == 0) return false;
  const std::string_view name = t.substr(0, eq);
  for (char c : name) {
    if (!is_name_char(c)) return false;
  }
  instruction.name = bare_name(name);
  if (instruction.name.empty()) return false;  // "% = ...": no name (fuzz_hlo_module)
  std::size_t pos = eq + 3;
  auto shapes = read_shape_at(t, pos);
  if (!shapes) {
    if (t.substr(eq + 3, 6) != "token[") {
      warnings.push_back(
          line_warning(instruction.line, "cannot read the result shape of " + instruction.name));
    }
    return true;  // an instruction, without arrays tessera can read
  }
  instruction.result = std::move(*shapes);
  skip_blanks(t, pos);
  const std::size_t open = t.find('(', pos);
  if (open == std::string_view::npos) {
    instruction.opcode = std::string(trim(t.substr(pos)));
    return true;
  }
  instruction.opcode = std::string(trim(t.substr(pos, open - pos)));
  const std::size_t close = group_end(t, open);
  if (close == std::string_view::npos) {
    warnings.push_back(line_warning(instruction.line,
                                    "the operand list of " + instruction.name + " is not closed"));
    return true;
  }
  instruction.arguments = std::string(t.substr(open + 1, close - open - 2));
  for (std::string_view part : split_top_level(instruction.arguments)) {
    HloOperand operand = read_operand(part);
    if (!operand.name.empty()) instruction.operands.push_back(std::move(operand));
  }
  read_attributes(t.substr(close), instruction);
  return true;
}

// "[ENTRY ]%name (params) -> result {": a computation header.
std::optional<HloComputationHeader> read_header(std::string_view t, int64_t line) {
  if (t.empty() || t.back() != '{' || t.find(" = ") != std::string_view::npos) return std::nullopt;
  HloComputationHeader header;
  header.line = line;
  if (t.substr(0, 6) == "ENTRY ") {
    header.entry = true;
    t.remove_prefix(6);
  }
  std::size_t end = 0;
  while (end < t.size() && is_name_char(t[end])) ++end;
  if (end == 0) return std::nullopt;
  header.name = bare_name(t.substr(0, end));
  return header;
}

void read_entry_layout(HloModuleText& module, std::string_view line, int64_t number) {
  const std::size_t at = line.find("entry_computation_layout={");
  if (at == std::string_view::npos) return;
  module.entry_layout_line = number;
  std::size_t pos = at + 26;
  if (pos < line.size() && line[pos] == '(') {
    ++pos;
    while (true) {
      skip_blanks(line, pos);
      if (pos >= line.size() || line[pos] == ')') break;
      auto shapes = read_shape_at(line, pos);
      if (!shapes) break;
      module.entry_parameters.push_back(std::move(*shapes));
      skip_blanks(line, pos);
      if (pos < line.size() && line[pos] == ',') ++pos;
    }
    if (pos < line.size() && line[pos] == ')') ++pos;
  }
  if (line.substr(pos, 2) == "->") {
    pos += 2;
    if (auto shapes = read_shape_at(line, pos)) {
      module.entry_result = std::move(*shapes);
      return;
    }
  }
  module.warnings.push_back(line_warning(number, "entry_computation_layout read only in part"));
}

}  // namespace

std::optional<std::string> HloInstruction::attribute(std::string_view key) const {
  for (const HloAttribute& a : attributes) {
    if (a.key == key) return a.value;
  }
  return std::nullopt;
}

std::vector<std::string> HloInstruction::called_computations() const {
  static constexpr std::array<std::string_view, 8> kCallKeys = {"calls",
                                                                "to_apply",
                                                                "body",
                                                                "condition",
                                                                "true_computation",
                                                                "false_computation",
                                                                "branch_computations",
                                                                "called_computations"};
  std::vector<std::string> names;
  for (const HloAttribute& a : attributes) {
    if (std::find(kCallKeys.begin(), kCallKeys.end(), a.key) == kCallKeys.end()) continue;
    // "%body.4" or "{%a, %b}".
    const std::string_view value = a.value;
    const bool list = !value.empty() && value.front() == '{';
    std::size_t i = list ? 1 : 0;
    while (i < value.size()) {
      while (i < value.size() && (value[i] == ' ' || value[i] == ',' || value[i] == '%')) ++i;
      const std::size_t begin = i;
      while (i < value.size() && is_name_char(value[i]) && value[i] != '%') ++i;
      if (i == begin) break;
      names.emplace_back(value.substr(begin, i - begin));
      if (!list) break;
    }
  }
  return names;
}

HloModuleText parse_hlo_module(std::string_view text) {
  HloModuleText module;
  std::string computation;
  std::optional<std::size_t> entry;  // index in module.computations
  bool full = false;
  int64_t number = 0;  // lines as the readers see them (an escaped message's count one each)
  // One line at a time: memory follows the instructions kept, not the lines of the text.
  for_each_input_line(text, [&](std::string_view line, int64_t) {
    ++number;
    if (full) return;
    if (line.find("HloModule ") != std::string_view::npos) {
      read_entry_layout(module, line, number);
      return;
    }
    const std::string_view t = trim(line);
    if (auto header = read_header(t, number)) {
      if (header->entry && entry) {
        // Which one XLA would run is not for tessera to guess; the first stays the entry.
        const HloComputationHeader& first = module.computations[*entry];
        module.warnings.push_back(line_warning(
            number, fmt::format("a second ENTRY computation {} (the first is {}, line {}): it "
                                "is read as an ordinary computation",
                                header->name, first.name, first.line)));
        header->entry = false;
      }
      if (header->entry) entry = module.computations.size();
      computation = header->name;
      module.computations.push_back(std::move(*header));
      return;
    }
    HloInstruction instruction;
    instruction.computation = computation;
    instruction.line = number;
    if (!read_instruction(t, instruction, module.warnings)) return;
    if (module.instructions.size() >= kMaxInputArrays) {
      module.warnings.push_back(
          line_warning(number, "more than " + std::to_string(kMaxInputArrays) +
                                   " instructions: the rest of the module is not read"));
      full = true;
      return;
    }
    module.instructions.push_back(std::move(instruction));
  });
  return module;
}

}  // namespace tessera::inputs
