// Buffers of an HLO module counted once (hlo_buffers.h).
#include "hlo_buffers.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace tessera::inputs {
namespace {

// A computation whose values are not buffers in memory: a fusion's body (registers) and the
// scalar functions reduce, sort, map, scatter and all-reduce apply.
bool runs_without_buffers(const std::string& caller_opcode) {
  return caller_opcode != "call" && caller_opcode != "while" && caller_opcode != "conditional" &&
         !caller_opcode.ends_with("-start") && caller_opcode != "async-start";
}

// Opcodes whose result is another instruction's buffer.
constexpr std::array<std::string_view, 8> kAliasingOpcodes = {
    "tuple",       "get-tuple-element",    "bitcast", "while", "call",
    "conditional", "optimization-barrier", "domain"};

std::string alias_reason(const std::string& opcode) {
  if (opcode == "tuple") return "a tuple of other instructions' buffers";
  if (opcode == "get-tuple-element") return "an element of its operand's tuple";
  if (opcode == "bitcast") return "a bitcast: its operand's buffer";
  if (opcode == "while") return "a while loop's state: its operand's buffer, updated in place";
  if (opcode == "call" || opcode == "conditional") {
    return fmt::format("the result of {}: the called computation's ROOT buffer", opcode);
  }
  if (opcode.ends_with("-done")) return fmt::format("{}: the buffer its -start made", opcode);
  return fmt::format("{}: its operand's buffer", opcode);
}

}  // namespace

void record_callees(const HloInstruction& instruction, HloModuleFacts& facts) {
  for (std::string& name : instruction.called_computations()) {
    facts.callers.emplace(std::move(name), std::make_pair(instruction.opcode, instruction.name));
  }
}

void mark_shared_buffers(InputReading& reading, const HloModuleFacts& facts) {
  // One level is enough: a reducer called from inside a fusion is itself called by a reduce.
  auto without_buffers = [&](const std::string& computation) -> std::string {
    const auto it = facts.callers.find(computation);
    if (it == facts.callers.end() || !runs_without_buffers(it->second.first)) return "";
    const auto& [opcode, instruction] = it->second;
    return fmt::format("inside {}, which {} {} runs: {}", computation, opcode, instruction,
                       opcode == "fusion"
                           ? "a fusion's values are not buffers in memory, its result is"
                           : "not a buffer in memory");
  };
  bool entry_read = false;
  for (std::size_t i = 0; i < reading.arrays.size() && i < facts.computation.size(); ++i) {
    entry_read = entry_read || (!facts.entry.empty() && facts.computation[i] == facts.entry);
  }
  for (std::size_t i = 0; i < reading.arrays.size() && i < facts.computation.size(); ++i) {
    InputArray& array = reading.arrays[i];
    const std::string& computation = facts.computation[i];
    const std::string& opcode = facts.opcode[i];
    if (computation.empty()) {
      // An entry of entry_computation_layout (the reader puts them first).
      if (entry_read) {
        array.same_buffer =
            fmt::format("the entry computation layout's {}: the buffer of {}'s {}", array.name,
                        facts.entry, array.name.starts_with("parameter") ? array.name : "ROOT");
      }
      continue;
    }
    if (std::string inside = without_buffers(computation); !inside.empty()) {
      array.same_buffer = std::move(inside);
    } else if (opcode == "parameter" && computation != facts.entry) {
      const auto caller = facts.callers.find(computation);
      array.same_buffer =
          caller == facts.callers.end()
              ? fmt::format("a parameter of {}: the buffer its caller passes", computation)
              : fmt::format("a parameter of {}: the buffer {} {} passes", computation,
                            caller->second.first, caller->second.second);
    } else if (std::find(kAliasingOpcodes.begin(), kAliasingOpcodes.end(), opcode) !=
                   kAliasingOpcodes.end() ||
               opcode.ends_with("-done")) {
      array.same_buffer = alias_reason(opcode);
    } else if (opcode == "copy-start" && array.name.ends_with("{1}")) {
      array.same_buffer = "copy-start's source: the buffer it copies from";
    }
  }
}

}  // namespace tessera::inputs
