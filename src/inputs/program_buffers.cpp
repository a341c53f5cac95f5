#include "program_buffers.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>
#include <unordered_map>

#include "tessera/error.h"
#include "tessera/tpu/target_profile.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::inputs {
namespace {

using Index = std::vector<int64_t>;

Index tail(const Index& index, std::size_t from) {
  return from >= index.size() ? Index{}
                              : Index(index.begin() + static_cast<long>(from), index.end());
}

Index prepend(int64_t first, const Index& rest) {
  Index out{first};
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

// Where a value's bytes are: another instruction's value (by instruction and tuple index).
struct Source {
  std::size_t instruction = 0;
  Index index;
};

class Scheduler {
 public:
  Scheduler(const HloModuleText& module, const HloModuleHeader& header,
            const tpu::TpuTarget& target)
      : module_(module), header_(header), target_(target) {
    values_.resize(module.instructions.size());
    for (std::size_t i = 0; i < module.instructions.size(); ++i) {
      const HloInstruction& in = module.instructions[i];
      computations_[in.computation].push_back(i);
      by_name_.emplace(in.name, i);
      if (in.root) roots_[in.computation] = i;
    }
    for (const HloComputationHeader& c : module.computations) {
      if (c.entry) entry_ = c.name;
    }
    // Each computation runs in place at most this many instructions in all (nested calls of
    // one computation from many sites would otherwise multiply).
    budget_ = 4 * static_cast<int64_t>(module.instructions.size()) + 1024;
  }

  ScheduledBuffers run() {
    ScheduledBuffers out;
    if (entry_.empty() || !computations_.contains(entry_)) {
      out.notes.push_back("no ENTRY computation was read: no schedule");
      return out;
    }
    run_computation(entry_);
    const int64_t end = static_cast<int64_t>(schedule_.size()) - 1;
    // Entry parameters are alive from the start, outputs until the end.
    for (std::size_t i : computations_[entry_]) {
      const HloInstruction& in = module_.instructions[i];
      if (in.opcode == "parameter") {
        for (const auto& [index, buffer] : values_[i]) {
          ProgramBuffer& b = buffers_[find(buffer)];
          b.kind = BufferKind::kParameter;
          b.defined = 0;
          b.last_use = end;
          if (b.memory_space >= 0 && b.memory_space < 8)
            out.argument_bytes_by_space[b.memory_space] += buffers_[buffer].size_bytes;
        }
        for (const OutputAlias& alias : header_.aliases) {
          if (in.arguments != std::to_string(alias.parameter)) continue;
          for (const auto& [index, buffer] : values_[i]) {
            if (index == alias.parameter_index) out.alias_bytes += buffers_[buffer].size_bytes;
          }
        }
      }
    }
    if (const auto root = roots_.find(entry_); root != roots_.end()) {
      std::set<int64_t> elements;
      std::set<Index> donated;  // output indices in input_output_alias, looked up once each
      for (const OutputAlias& alias : header_.aliases) donated.insert(alias.output_index);
      for (const auto& [index, buffer] : values_[root->second]) {
        ProgramBuffer& b = buffers_[find(buffer)];
        if (b.kind != BufferKind::kParameter) b.kind = BufferKind::kOutput;
        if (donated.contains(index)) b.donated = true;
        b.last_use = end;
        if (output_roots_.insert(find(buffer)).second && b.memory_space >= 0 &&
            b.memory_space < 8) {
          out.output_bytes_by_space[b.memory_space] += b.size_bytes;
        }
        if (!index.empty()) elements.insert(index.front());
      }
      out.output_tuple_elements = static_cast<int64_t>(elements.size());
    }
    for (std::size_t b = 0; b < buffers_.size(); ++b) {
      if (find(static_cast<int>(b)) == static_cast<int>(b)) out.buffers.push_back(buffers_[b]);
    }
    std::stable_sort(out.buffers.begin(), out.buffers.end(),
                     [](const auto& x, const auto& y) { return x.defined < y.defined; });
    out.schedule = std::move(schedule_);
    out.notes.insert(out.notes.end(), notes_.begin(), notes_.end());
    return out;
  }

 private:
  int find(int b) {
    while (parent_[b] != b) b = parent_[b] = parent_[parent_[b]];
    return b;
  }

  void merge(int a, int b) {
    a = find(a);
    b = find(b);
    if (a == b) return;
    if (b < a) std::swap(a, b);
    parent_[b] = a;
    ProgramBuffer& x = buffers_[a];
    const ProgramBuffer& y = buffers_[b];
    if (y.size_bytes > x.size_bytes) {
      x.name = y.name;
      x.layout = y.layout;
      x.size_bytes = y.size_bytes;
      x.op_name = y.op_name;
      x.source = y.source;
    }
    x.defined = std::min(x.defined, y.defined);
    x.last_use = std::max(x.last_use, y.last_use);
  }

  int lookup(std::size_t instruction, const Index& index) const {
    for (const auto& [i, buffer] : values_[instruction]) {
      if (i == index) return buffer;
    }
    return -1;
  }

  std::optional<std::size_t> operand(const HloInstruction& in, std::size_t k) const {
    if (k >= in.operands.size()) return std::nullopt;
    const auto found = by_name_.find(in.operands[k].name);
    if (found == by_name_.end()) return std::nullopt;
    return found->second;
  }

  std::optional<Source> alias_source(std::size_t i, const Index& index) {
    const HloInstruction& in = module_.instructions[i];
    const std::string& op = in.opcode;
    auto from = [&](std::size_t k, Index at) -> std::optional<Source> {
      const auto o = operand(in, k);
      if (!o) return std::nullopt;
      return Source{*o, std::move(at)};
    };
    for (const OutputAlias& alias : operand_aliasing(in)) {
      if (alias.output_index == index)
        return from(static_cast<std::size_t>(alias.parameter), alias.parameter_index);
    }
    if (op == "parameter") {
      const auto bound = bindings_.find(in.computation);
      if (bound == bindings_.end()) return std::nullopt;
      const std::size_t number = static_cast<std::size_t>(std::atoll(in.arguments.c_str()));
      if (number >= bound->second.size()) return std::nullopt;
      return Source{bound->second[number], index};
    }
    if (op == "tuple" && !index.empty())
      return from(static_cast<std::size_t>(index[0]), tail(index, 1));
    if (op == "get-tuple-element") {
      const auto k = in.attribute("index");
      if (!k) return std::nullopt;
      return from(0, prepend(std::atoll(k->c_str()), index));
    }
    if (op == "bitcast" || op == "optimization-barrier" || op == "dynamic-update-slice" ||
        op == "async-update" || op == "while") {
      return from(0, index);
    }
    if (op == "copy-done" || op == "async-done")
      return from(0, prepend(op == "copy-done" ? 0 : 1, index));
    if (op == "copy-start") {
      if (!index.empty() && index[0] == 1) return from(0, tail(index, 1));
      return std::nullopt;
    }
    if (op == "async-start") {
      if (index.size() >= 2 && index[0] == 0)
        return from(static_cast<std::size_t>(index[1]), tail(index, 2));
      return std::nullopt;
    }
    if (op.ends_with("-done")) {
      const auto start = operand(in, 0);
      if (!start) return std::nullopt;
      const Index one = prepend(1, index);
      return Source{*start, lookup(*start, one) >= 0 ? one : index};
    }
    if (op.ends_with("-start") && !index.empty() && index[0] == 0 && in.result.size() > 1) {
      return from(0, tail(index, 1));
    }
    return std::nullopt;
  }

  int new_buffer(std::size_t i, const ShapeToken& token, int64_t position) {
    const HloInstruction& in = module_.instructions[i];
    ProgramBuffer b;
    b.name = in.name + token.index;
    b.layout = token.text;
    try {
      bool written = false;
      xla::Shape shape = xla::parse_shape(token.text, written);
      if (!written) {
        shape = tpu::layout_for_target(token.text, target_);
        b.layout = xla::print_shape(shape);
      }
      b.memory_space = shape.layout.memory_space;
      b.size_bytes = xla::TiledLayout(shape).size_bytes();
    } catch (const Error&) {
      // token[], opaque and other shapes without bytes of their own
    }
    b.constant = in.opcode == "constant";
    const SourceOfInstruction source = instruction_source(in, header_);
    b.op_name = source.op_name;
    b.source = source.source;
    b.defined = position;
    b.last_use = position;
    buffers_.push_back(std::move(b));
    parent_.push_back(static_cast<int>(parent_.size()));
    return parent_.back();
  }

  void define(std::size_t i, int64_t position) {
    values_[i].clear();
    for (const ShapeToken& token : module_.instructions[i].result) {
      const Index index = parse_shape_index(token.index);
      int buffer = -1;
      if (const auto source = alias_source(i, index))
        buffer = lookup(source->instruction, source->index);
      if (buffer < 0) buffer = new_buffer(i, token, position);
      values_[i].emplace_back(index, buffer);
    }
  }

  void use(std::size_t operand_instruction, int64_t position) {
    for (const auto& [index, buffer] : values_[operand_instruction]) {
      const int b = find(buffer);
      buffers_[b].last_use = std::max(buffers_[b].last_use, position);
      for (auto& loop : loops_) {
        if (loop.first > buffers_[b].defined) loop.second.push_back(b);
      }
    }
  }

  void run_called(const std::string& computation, std::vector<std::size_t> parameters) {
    if (running_.contains(computation) || !computations_.contains(computation)) return;
    bindings_[computation] = std::move(parameters);
    run_computation(computation);
  }

  void run_computation(const std::string& computation) {
    running_.insert(computation);
    for (std::size_t i : computations_[computation]) {
      if (static_cast<int64_t>(schedule_.size()) >= budget_) {
        if (notes_.empty())
          notes_.push_back("computations called from many places were run in place only up to " +
                           std::to_string(budget_) + " instructions");
        break;
      }
      run_instruction(i);
    }
    running_.erase(computation);
  }

  void run_instruction(std::size_t i) {
    const HloInstruction& in = module_.instructions[i];
    const int64_t position = static_cast<int64_t>(schedule_.size());
    schedule_.push_back(in.name);
    for (std::size_t k = 0; k < in.operands.size(); ++k) {
      if (const auto o = operand(in, k)) use(*o, position);
    }
    const std::vector<std::string> called = in.called_computations();
    if (in.opcode == "while" && in.operands.size() == 1) {
      // An operand the module does not define (a cut or garbled text) stands for the loop itself.
      const std::size_t init = operand(in, 0).value_or(i);
      loops_.push_back({position, {}});
      const auto condition = in.attribute("condition");
      const auto body = in.attribute("body");
      for (const auto& c : {condition, body}) {
        if (c) run_called(std::string(c->starts_with('%') ? c->substr(1) : *c), {init});
      }
      // The body's result is the next iteration's state: the same buffers.
      if (body) {
        const std::string name = body->starts_with('%') ? body->substr(1) : *body;
        if (const auto root = roots_.find(name); root != roots_.end()) {
          for (const auto& [index, buffer] : values_[root->second]) {
            if (const int carry = lookup(init, index); carry >= 0) merge(carry, buffer);
          }
        }
      }
      const int64_t end = static_cast<int64_t>(schedule_.size()) - 1;
      for (int b : loops_.back().second) {
        buffers_[find(b)].last_use = std::max(buffers_[find(b)].last_use, end);
      }
      loops_.pop_back();
      define(i, position);
      return;
    }
    if (in.opcode == "call" && !called.empty()) {
      std::vector<std::size_t> parameters;
      for (std::size_t k = 0; k < in.operands.size(); ++k)
        parameters.push_back(operand(in, k).value_or(i));
      run_called(called.front(), parameters);
      define_from_roots(i, {called.front()}, position);
      return;
    }
    if (in.opcode == "conditional" && !called.empty()) {
      for (std::size_t b = 0; b < called.size(); ++b)
        run_called(called[b], {operand(in, b + 1).value_or(i)});
      define_from_roots(i, called, position);
      return;
    }
    define(i, position);
  }

  // A call's or conditional's result is its computations' roots (every branch's the same buffer).
  void define_from_roots(std::size_t i, const std::vector<std::string>& computations,
                         int64_t position) {
    values_[i].clear();
    for (const ShapeToken& token : module_.instructions[i].result) {
      const Index index = parse_shape_index(token.index);
      int buffer = -1;
      for (const std::string& c : computations) {
        const auto root = roots_.find(c);
        const int b = root == roots_.end() ? -1 : lookup(root->second, index);
        if (b < 0) continue;
        if (buffer < 0)
          buffer = b;
        else
          merge(buffer, b);
      }
      if (buffer < 0) buffer = new_buffer(i, token, position);
      values_[i].emplace_back(index, buffer);
    }
  }

  const HloModuleText& module_;
  const HloModuleHeader& header_;
  tpu::TpuTarget target_;
  std::string entry_;
  std::unordered_map<std::string, std::vector<std::size_t>> computations_;
  std::unordered_map<std::string, std::size_t> roots_;
  std::unordered_map<std::string_view, std::size_t> by_name_;
  std::unordered_map<std::string, std::vector<std::size_t>> bindings_;
  std::vector<std::vector<std::pair<Index, int>>> values_;
  std::vector<int> parent_;
  std::vector<ProgramBuffer> buffers_;
  std::vector<std::string> schedule_;
  std::vector<std::pair<int64_t, std::vector<int>>> loops_;
  std::set<std::string> running_;
  std::set<int> output_roots_;
  std::vector<std::string> notes_;
  int64_t budget_ = 0;
};

}  // namespace

ScheduledBuffers schedule_buffers(const HloModuleText& module, const HloModuleHeader& header,
                                  const tpu::TpuTarget& target) {
  Scheduler scheduler(module, header, target);
  return scheduler.run();
}

}  // namespace tessera::inputs
