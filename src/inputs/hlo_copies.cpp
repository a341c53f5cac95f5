#include "tessera/inputs/hlo_copies.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <optional>

#include "tessera/element_type.h"
#include "tessera/error.h"
#include "tessera/explain/layout_diff.h"
#include "tessera/explain/layout_explanation.h"
#include "tessera/inputs/hlo_instructions.h"
#include "tessera/inputs/input_arrays.h"
#include "tessera/integer_text.h"
#include "tessera/relayout/moved_elements.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::inputs {
namespace {

// Elements compared one by one in a whole module (reshapes, and copies between layouts without a
// common refinement): a module of many large ones stays fast, the rest are not counted (-1).
constexpr int64_t kModuleWalkElements = int64_t{1} << 26;

struct Module {
  HloModuleText text;
  mutable int64_t walk_budget = kModuleWalkElements;  // elements left to compare one by one
  std::map<std::string, std::size_t> by_name;         // the first instruction of each name
  std::map<std::string, std::string> fusion_of;       // computation -> fusion that calls it
  std::string entry;
  std::vector<bool> returned;  // per instruction: what the program returns (mark_returned)
};

// Marks what the program returns: the entry's root, and what reaches it through bitcasts and
// tuples. One walk back from the root, each instruction visited once: linear in the module
// (deciding it per copy by following users took exponential time in tuples fanned in many ways).
void mark_returned(Module& m) {
  m.returned.assign(m.text.instructions.size(), false);
  std::vector<std::size_t> pending;
  for (std::size_t i = 0; i < m.text.instructions.size(); ++i) {
    const HloInstruction& instruction = m.text.instructions[i];
    if (instruction.root && instruction.computation == m.entry) {
      m.returned[i] = true;
      pending.push_back(i);
    }
  }
  while (!pending.empty()) {
    const HloInstruction& user = m.text.instructions[pending.back()];
    pending.pop_back();
    if (user.opcode != "bitcast" && user.opcode != "tuple") continue;
    for (const HloOperand& operand : user.operands) {
      const auto it = m.by_name.find(operand.name);
      if (it == m.by_name.end() || m.returned[it->second] ||
          m.text.instructions[it->second].computation != m.entry) {
        continue;
      }
      m.returned[it->second] = true;
      pending.push_back(it->second);
    }
  }
}

Module index_module(std::string_view module_text) {
  Module m{parse_hlo_module(module_text), kModuleWalkElements, {}, {}, {}, {}};
  for (const HloComputationHeader& c : m.text.computations) {
    if (c.entry) m.entry = c.name;
  }
  for (std::size_t i = 0; i < m.text.instructions.size(); ++i) {
    const HloInstruction& instruction = m.text.instructions[i];
    m.by_name.emplace(instruction.name, i);
    if (instruction.opcode != "fusion") continue;
    for (std::string& name : instruction.called_computations()) {
      m.fusion_of.emplace(std::move(name), instruction.name);
    }
  }
  mark_returned(m);
  return m;
}

const HloInstruction* find(const Module& m, const std::string& name) {
  const auto it = m.by_name.find(name);
  return it == m.by_name.end() ? nullptr : &m.text.instructions[it->second];
}

// The array shape of operand 0 as written, or its defining instruction's array result.
std::optional<std::string> operand_shape(const Module& m, const HloInstruction& instruction) {
  if (instruction.operands.empty()) return std::nullopt;
  const HloOperand& operand = instruction.operands.front();
  if (!operand.shape.empty()) return operand.shape;
  const HloInstruction* definition = find(m, operand.name);
  if (definition == nullptr || definition->result.size() != 1 ||
      !definition->result.front().index.empty()) {
    return std::nullopt;
  }
  return definition->result.front().text;
}

// The array the instruction writes: copy-start's destination is its result element {0}.
std::optional<std::string> result_shape(const HloInstruction& instruction) {
  for (const ShapeToken& token : instruction.result) {
    if (instruction.opcode == "copy-start" ? token.index == "{0}" : token.index.empty()) {
      return token.text;
    }
  }
  return std::nullopt;
}

// The operand's layout seen in the result's dimensions: transpose's result dim i is operand
// dim dimensions[i], so the operand's physical order names result dims through the inverse.
std::optional<xla::Shape> transposed_view(const xla::Shape& operand,
                                          const std::vector<int64_t>& permutation) {
  const auto rank = static_cast<std::size_t>(operand.rank());
  if (permutation.size() != rank) return std::nullopt;
  std::vector<int64_t> inverse(rank, -1);
  xla::Shape view = operand;
  for (std::size_t i = 0; i < rank; ++i) {
    const int64_t from = permutation[i];
    if (from < 0 || static_cast<std::size_t>(from) >= rank || inverse[from] != -1) {
      return std::nullopt;
    }
    inverse[from] = static_cast<int64_t>(i);
    view.dimensions[i] = operand.dimensions[from];
  }
  for (int64_t& dim : view.layout.minor_to_major) dim = inverse[dim];
  return view;
}

// Elements of a reshape whose position changes: both walks visit row-major positions in order.
int64_t reshape_moved(const IndexMap& from, const IndexMap& to) {
  int64_t moved = 0;
  LogicalWalker a(from), b(to);
  for (; !a.done() && !b.done(); a.next(), b.next()) {
    moved +=
        !relayout::same_position(a.offset(), from.element_bits(), b.offset(), to.element_bits());
  }
  return moved;
}

// The moved elements of a copy or transpose; -1 when counting them would compare more elements one
// by one than the module has left.
int64_t moved_or_unknown(const Module& m, const IndexMap& a, const IndexMap& b) {
  try {
    const relayout::MovedElements counted = relayout::count_moved_elements(a, b, m.walk_budget);
    if (!counted.method.starts_with("closed form")) m.walk_budget -= counted.elements;
    return counted.moved;
  } catch (const Error& error) {
    if (error.kind() != ErrorKind::kUnsupported) throw;
    return -1;
  }
}

std::string metadata_name(const HloInstruction& instruction) {
  const auto metadata = instruction.attribute("metadata");
  if (!metadata) return "";
  const std::size_t at = metadata->find("op_name=\"");
  if (at == std::string::npos) return "";
  const std::size_t end = metadata->find('"', at + 9);
  return end == std::string::npos ? "" : metadata->substr(at + 9, end - at - 9);
}

// Whether the instruction is what the program returns (mark_returned).
bool returned(const Module& m, const HloInstruction& instruction) {
  return m.returned[static_cast<std::size_t>(&instruction - m.text.instructions.data())];
}

// Where the data of `name` comes from, through what moves no element: bitcasts, prefetches
// (copy-done of a copy-start) and the parameters of fused computations (their fusion's
// operands).
const HloInstruction* data_source(const Module& m, const std::string& name) {
  const HloInstruction* at = find(m, name);
  for (int step = 0; at != nullptr && step < 16; ++step) {
    const std::string& op = at->opcode;
    if ((op == "bitcast" || op == "copy-done" || op == "copy-start") && !at->operands.empty()) {
      at = find(m, at->operands.front().name);
    } else if (op == "parameter" && at->computation != m.entry) {
      const auto fusion = m.fusion_of.find(at->computation);
      const HloInstruction* caller =
          fusion == m.fusion_of.end() ? nullptr : find(m, fusion->second);
      int64_t number = -1;
      try {
        number = parse_integer(trim(at->arguments), "parameter number");
      } catch (const Error&) {
        return at;
      }
      if (caller == nullptr || number < 0 ||
          static_cast<std::size_t>(number) >= caller->operands.size()) {
        return at;
      }
      at = find(m, caller->operands[static_cast<std::size_t>(number)].name);
    } else {
      return at;
    }
  }
  return at;
}

// Only dimensions of size 1 change places: the transpose is a reshape.
bool moves_only_unit_dims(const xla::Shape& operand, const std::vector<int64_t>& permutation) {
  int64_t last = -1;
  for (int64_t from : permutation) {
    if (operand.dimensions[static_cast<std::size_t>(from)] == 1) continue;
    if (from < last) return false;
    last = from;
  }
  return true;
}

// `from` is the operand as the result's dims see it (transposed_view for a transpose), `operand`
// the operand's own shape.
std::string suggest_fix(const Module& m, const HloInstruction& instruction, const HloCopy& copy,
                        const xla::Shape& operand, const xla::Shape& from, const xla::Shape& to,
                        const std::vector<int64_t>& permutation) {
  if (copy.kind == "memory_space") return "";
  if (!permutation.empty() && moves_only_unit_dims(operand, permutation)) {
    return "the transpose only moves dimensions of size 1: jnp.reshape gives the same array";
  }
  if (copy.kind == "reshape") {
    if (from.dimensions.empty() || to.dimensions.empty() ||
        from.dimensions.back() != to.dimensions.back()) {
      return fmt::format(
          "the reshape changes the last dimension ({} -> {}), which lies across the tiles' 128 "
          "lanes: reshape only the leading dimensions (keep the last one whole), or make the "
          "last dimension a multiple of 128 first",
          from.dimensions.empty() ? 1 : from.dimensions.back(),
          to.dimensions.empty() ? 1 : to.dimensions.back());
    }
    return "";
  }
  const bool reorders = from.layout.minor_to_major != to.layout.minor_to_major;
  const HloInstruction* source = data_source(m, copy.operand);
  if (reorders && source != nullptr && source->opcode == "parameter" &&
      source->computation == m.entry) {
    const std::string name = metadata_name(*source);
    return fmt::format(
        "argument {}{} arrives as {} and is transposed on every call: pass it already transposed "
        "(store the weight transposed once, e.g. w.T when it is loaded), or let XLA choose its "
        "layout (jax.jit(f, in_shardings=Format(Layout.AUTO)), arguments placed in "
        "compiled.input_formats)",
        source->name, name.empty() ? "" : fmt::format(" ('{}')", name),
        xla::print_layout(from.layout));
  }
  if (reorders && returned(m, instruction)) {
    return fmt::format(
        "the result is returned transposed ({}): return it in the order it is computed and "
        "transpose where it is used, or let XLA choose the output's layout (out_shardings="
        "Format(Layout.AUTO))",
        xla::print_layout(to.layout));
  }
  if (reorders) {
    return "XLA transposes this intermediate for the op that reads it: produce it in the order "
           "that op reads (swap the output dimensions of the einsum or dot that makes it), so "
           "the transpose folds into that op";
  }
  return "";
}

void add_changes(HloCopy& copy, const xla::Shape& from, const xla::Shape& to) {
  for (const explain::LayoutDifference& d : explain::notation_differences(from, to)) {
    copy.changes.push_back(fmt::format("{} {} -> {}", d.what, d.a, d.b));
  }
}

std::optional<HloCopy> examine(const Module& m, const HloInstruction& instruction,
                               std::vector<std::string>& warnings) {
  const std::string& op = instruction.opcode;
  if (op != "copy" && op != "copy-start" && op != "transpose" && op != "reshape") {
    return std::nullopt;
  }
  const auto from_text = operand_shape(m, instruction);
  const auto to_text = result_shape(instruction);
  if (!from_text || !to_text) return std::nullopt;
  HloCopy copy;
  copy.name = instruction.name;
  copy.opcode = op;
  copy.computation = instruction.computation;
  if (const auto it = m.fusion_of.find(instruction.computation); it != m.fusion_of.end()) {
    copy.fusion = it->second;
  }
  copy.operand = instruction.operands.front().name;
  copy.line = instruction.line;
  try {
    const xla::Shape from = xla::parse_shape(*from_text);
    const xla::Shape to = xla::parse_shape(*to_text);
    // libtpu's copies may also convert (f32 -> bf16 before a dot at default precision:
    // swapaxes before a matmul, tests/inputs/fixtures/tpu_hlo/v6e_swapaxes_convert_copy.hlo).
    const bool converts = from.element_type != to.element_type;
    if (converts && op != "copy") return std::nullopt;
    const xla::TiledLayout from_layout(from), to_layout(to);
    copy.from = xla::print_shape(from);
    copy.to = xla::print_shape(to);
    copy.bytes = to_layout.size_bytes();
    copy.read_bytes = from_layout.size_bytes();
    copy.elements = to_layout.logical_elements();
    std::vector<int64_t> permutation;
    if (op == "transpose") {
      const std::string dimensions = instruction.attribute("dimensions").value_or("{}");
      std::string_view list = trim(dimensions);
      if (list.starts_with('{') && list.ends_with('}')) list = list.substr(1, list.size() - 2);
      permutation = parse_integer_list(list, "transpose dimension");
      const auto view = transposed_view(from, permutation);
      if (!view || view->dimensions != to.dimensions) return std::nullopt;
      const xla::TiledLayout view_layout(*view);
      copy.moved_elements = moved_or_unknown(m, view_layout.index_map(), to_layout.index_map());
      if (copy.moved_elements == 0 && view->layout == to.layout) return std::nullopt;
      copy.changes.push_back(
          fmt::format("transpose dimensions={{{}}}", fmt::join(permutation, ",")));
      add_changes(copy, *view, to);
    } else if (op == "reshape") {
      if (from_layout.logical_elements() != copy.elements) {
        throw Error(ErrorKind::kInvalid,
                    fmt::format("a reshape keeps its elements, but {} holds {} and {} holds {}",
                                copy.from, from_layout.logical_elements(), copy.to, copy.elements));
      }
      if (copy.elements <= m.walk_budget) {
        m.walk_budget -= copy.elements;
        copy.moved_elements = reshape_moved(from_layout.index_map(), to_layout.index_map());
        if (copy.moved_elements == 0 && copy.bytes == copy.read_bytes &&
            from.layout.memory_space == to.layout.memory_space) {
          return std::nullopt;  // a bitcast in all but name
        }
      }
      copy.changes.push_back(fmt::format("dims [{}] -> [{}]", fmt::join(from.dimensions, ","),
                                         fmt::join(to.dimensions, ",")));
    } else {
      if (from == to || from.dimensions != to.dimensions) return std::nullopt;
      copy.moved_elements = moved_or_unknown(m, from_layout.index_map(), to_layout.index_map());
      if (converts) {
        copy.changes.push_back(fmt::format("element type {} -> {}: the copy also converts",
                                           element_type_name(from.element_type),
                                           element_type_name(to.element_type)));
      }
      add_changes(copy, from, to);
    }
    xla::Shape same_space = to;
    same_space.layout.memory_space = from.layout.memory_space;
    if (op == "reshape") {
      copy.kind = "reshape";
    } else {
      copy.kind = op != "transpose" && same_space == from ? "memory_space" : "relayout";
    }
    // A transpose reorders what its operand's layout, seen in the result's dims, says.
    const xla::Shape seen = permutation.empty() ? from : *transposed_view(from, permutation);
    copy.fix = suggest_fix(m, instruction, copy, from, seen, to, permutation);
  } catch (const Error& error) {
    warnings.push_back(fmt::format("line {}: {} {} not examined: {}", instruction.line, op,
                                   instruction.name, error.message()));
    return std::nullopt;
  }
  return copy;
}

std::string moved_text(const HloCopy& copy) {
  if (copy.moved_elements < 0) return "";
  return fmt::format(", {} of {} elements move", copy.moved_elements, copy.elements);
}

}  // namespace

HloCopies find_copies(std::string_view module_bytes) {
  std::string decoded;
  const Module m = index_module(utf8_view(module_bytes, decoded));
  HloCopies out;
  out.instructions = static_cast<int64_t>(m.text.instructions.size());
  out.warnings = m.text.warnings;
  for (const HloInstruction& instruction : m.text.instructions) {
    if (auto copy = examine(m, instruction, out.warnings)) out.copies.push_back(std::move(*copy));
  }
  std::stable_sort(out.copies.begin(), out.copies.end(), [](const HloCopy& a, const HloCopy& b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.name < b.name;
  });
  for (const HloCopy& copy : out.copies) {
    out.bytes += copy.bytes;
    if (copy.kind != "memory_space") out.relayout_bytes += copy.bytes;
  }
  return out;
}

nlohmann::ordered_json copies_json(const HloCopies& copies) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const HloCopy& c : copies.copies) {
    list.push_back({{"name", c.name},
                    {"from", c.from},
                    {"to", c.to},
                    {"bytes", c.bytes},
                    {"kind", c.kind},
                    {"opcode", c.opcode},
                    {"computation", c.computation},
                    {"fusion", c.fusion},
                    {"operand", c.operand},
                    {"read_bytes", c.read_bytes},
                    {"elements", c.elements},
                    {"moved_elements", c.moved_elements},
                    {"changes", c.changes},
                    {"fix", c.fix},
                    {"line", c.line}});
  }
  return {{"copies", list},
          {"bytes", copies.bytes},
          {"relayout_bytes", copies.relayout_bytes},
          {"instructions", copies.instructions},
          {"warnings", copies.warnings}};
}

std::string copies_text(const HloCopies& copies, std::size_t limit) {
  if (copies.instructions == 0) {
    // An OOM report or a log holds no instruction: "none of the 0" would read as an answer.
    return "no copies: this is not an HLO module (no instruction was read); --copies reads a "
           "compiled module's text, e.g. XLA_FLAGS=--xla_dump_to=DIR's *.after_optimizations.txt\n";
  }
  if (copies.copies.empty()) {
    return fmt::format("no copies: none of the {} instructions changes a layout\n",
                       copies.instructions);
  }
  std::string out = fmt::format(
      "{} instruction{} a layout, {} written: {} rearranging elements, {} copied as they are "
      "into another memory space\n",
      copies.copies.size(), copies.copies.size() == 1 ? " changes" : "s change",
      explain::human_bytes(copies.bytes), explain::human_bytes(copies.relayout_bytes),
      explain::human_bytes(copies.bytes - copies.relayout_bytes));
  std::size_t shown = 0;
  for (const HloCopy& c : copies.copies) {
    if (limit != 0 && shown++ >= limit) {
      out += fmt::format("... {} more (--all lists every one)\n", copies.copies.size() - limit);
      break;
    }
    out += fmt::format("\n{:>10}  {} {}{} (line {}): {}{}\n", explain::human_bytes(c.bytes),
                       c.opcode, c.name, c.fusion.empty() ? "" : " in " + c.fusion, c.line,
                       c.kind == "memory_space" ? "to another memory space" : "relayout",
                       moved_text(c));
    out += fmt::format("            from {}\n              to {}\n", c.from, c.to);
    if (!c.changes.empty()) out += fmt::format("            {}\n", fmt::join(c.changes, "; "));
    if (!c.fix.empty()) out += fmt::format("            fix: {}\n", c.fix);
  }
  return out;
}

}  // namespace tessera::inputs
