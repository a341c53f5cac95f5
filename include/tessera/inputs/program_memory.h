// A program's memory as the TPU compiler counts it, from its HLO module (and, when given, the
// compiler's own buffer assignment): the figures JAX's `compiled.memory_analysis()` prints, per
// memory space, and the buffers alive at the peak with the line of the user's code that made them.
//
// Example (tests/fixtures/tpu_memory/v5e_mlp_train, an MLP step with donated parameters):
//   argument_size_in_bytes 3,545,088, output_size_in_bytes 3,152,896 (the four updated weights,
//   the loss scalar's 512 B and the output tuple's 512 B index table), alias_size_in_bytes
//   3,151,872 (input_output_alias), temp_size_in_bytes 0 (every intermediate is in VMEM, S(1)):
//   peak_bytes 3,546,112, where summing every array of the module gave 72 MiB.
// The rules, each with the compile that shows it: docs/design/program-memory.md.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/inputs/hlo_instructions.h"
#include "tessera/inputs/xla_dump_files.h"
#include "tessera/tpu/target.h"

namespace tessera::inputs {

// JAX's names for one memory space's figures (HBM's are memory_analysis()'s own).
struct MemoryFigures {
  int64_t argument_size_in_bytes = 0;
  int64_t output_size_in_bytes = 0;
  int64_t alias_size_in_bytes = 0;  // parameters donated to outputs (input_output_alias)
  int64_t temp_size_in_bytes = 0;   // the peak of temporaries alive at once
  // What the program needs at its peak: argument + output - alias + temp.
  int64_t peak_bytes() const {
    return argument_size_in_bytes + output_size_in_bytes - alias_size_in_bytes + temp_size_in_bytes;
  }
};

enum class BufferKind { kParameter, kOutput, kTemporary };
std::string_view buffer_kind_name(BufferKind kind);  // "parameter", "output", "temporary"

// One buffer: every value that shares it (tuple elements, get-tuple-element, bitcast, the
// operand of copy-start or slice-start, loop carries, donated parameters) counted once.
struct ProgramBuffer {
  std::string name;    // the instruction that defines it, with its tuple index: "fusion.3{1}"
  std::string layout;  // as the module writes it: "bf16[2048,32003]{0,1:T(8,128)(2,1)}"
  int64_t size_bytes = 0;
  int64_t memory_space = 0;  // S(n); 0 is HBM
  BufferKind kind = BufferKind::kTemporary;
  bool constant = false;  // a literal: the compiler keeps it apart from the temporaries
  // A temporary that dies before an output at least as large is written: the compiler keeps it
  // in that output's allocation, at no cost of its own.
  bool in_output_allocation = false;
  // An output written into a donated parameter's buffer (input_output_alias): its bytes are the
  // parameter's, counted once at the peak, and a change of this output alone ends the aliasing.
  bool donated = false;
  std::string op_name;   // the instruction's metadata op_name ("jit(f)/dot_general")
  std::string source;    // "file.py:52" from its metadata (directly or via the stack frames)
  int64_t defined = 0;   // schedule position where it is written
  int64_t last_use = 0;  // schedule position of its last reader (the end for arguments/outputs)
};

// A change that lowers the peak, for one buffer alive there. Offered only where a user can make
// it: an argument, an output, or a temporary whose source line is known; any other buffer is
// the compiler's own ("change the op at file:line" when a line is known). Never claims more
// than the buffer's bytes, and only for buffers alive at the peak.
struct PeakFix {
  std::string buffer;         // ProgramBuffer::name
  std::string change;         // in the user's terms
  int64_t saves_at_peak = 0;  // at most this many bytes less at the peak (0: not counted)
  bool user_can_change = true;
};

// Where the figures come from.
enum class MemoryBasis {
  kSchedule,          // the live ranges on a scheduled module's order (is_scheduled=true)
  kEstimate,          // an unscheduled module: the text's order stands in for the schedule
  kBufferAssignment,  // the compiler's *-buffer-assignment.txt
};
std::string_view memory_basis_name(MemoryBasis basis);  // "schedule", "estimate", ...

struct MemorySpaceFigures {
  int64_t memory_space = 0;
  MemoryFigures figures;
  // What the compiler's memory-usage report says it allocated in this space (index tables,
  // constants and scalars included); -1 when no report was read.
  int64_t allocated_bytes = -1;
};

struct ProgramMemory {
  MemoryBasis basis = MemoryBasis::kSchedule;
  MemoryFigures hbm;                              // memory space 0
  std::vector<MemorySpaceFigures> memory_spaces;  // every space seen, by number
  int64_t schedule_length = 0;
  int64_t peak_position = -1;  // where the HBM temporaries peak (-1: none in HBM)
  std::string peak_instruction;
  std::vector<ProgramBuffer> live_at_peak;  // HBM buffers alive there, largest first
  std::vector<PeakFix> fixes;               // for the largest of them, in the same order
  std::vector<ProgramBuffer> buffers;       // every buffer, in the order they are defined
  // HBM bytes alive at each schedule position (arguments + outputs - aliased + temporaries).
  std::vector<int64_t> hbm_over_schedule;
  std::vector<std::string> notes;  // what the figures leave out or assume, in words
};

// The module's memory under `target` (for the output tuple's index table and the layouts of
// arrays written without one). `module_text` is the text `module` was parsed from (its header
// and stack frames are read from it).
ProgramMemory program_memory(std::string_view module_text, const HloModuleText& module,
                             const tpu::TpuTarget& target);

// True when the text is a module's *-buffer-assignment.txt.
bool is_buffer_assignment(std::string_view text);

// The figures the compiler's buffer assignment holds (exact arguments, outputs and aliases; the
// temporaries as it packs them in HBM). Throws Error naming the line when it is not one.
ProgramMemory program_memory_from_buffer_assignment(std::string_view text);

// The compiler's buffer assignment's figures put in place of `from_module`'s (its live ranges
// and buffers kept): the module and its dump read together.
ProgramMemory with_buffer_assignment(ProgramMemory from_module, const ProgramMemory& assigned);

// The program memory of a text `tessera explain FILE` reads: an HLO module (with the compiler's
// figures when its buffer assignment is beside `path`), or a buffer assignment alone; nullopt for
// any other text.
std::optional<ProgramMemory> program_memory_of_input(std::string_view text, const std::string& path,
                                                     const tpu::TpuTarget& target);

// The same, with the compiler's files of `files` (tessera/inputs/xla_dump_files.h) read with the
// text: the buffer assignment's figures in place of the module's, and the memory-usage report's
// totals as each space's allocated_bytes.
std::optional<ProgramMemory> program_memory_of_dump(std::string_view text,
                                                    const XlaDumpFiles& files,
                                                    const tpu::TpuTarget& target);

// The "memory_analysis" value of `tessera explain FILE --json` (and Python's explain_input):
// program_memory_json of program_memory_of_input, or null for any other text.
nlohmann::ordered_json memory_analysis_json(std::string_view text, const std::string& path,
                                            const tpu::TpuTarget& target);
nlohmann::ordered_json memory_analysis_json(std::string_view text, const XlaDumpFiles& files,
                                            const tpu::TpuTarget& target);

// HBM per core as libtpu reports it ("exceeds available HBM (15.75G)"), 0 when not known.
int64_t hbm_capacity_bytes(const tpu::TpuTarget& target);

// The fixes for the largest buffers alive at the peak (at most `top`): padding removed where the
// layout wastes a tenth or more (an f32[N,k] with small k as k column arrays, which no consumer
// turns back into the padded array), else a narrower dtype, sharding, donation or
// rematerialization.
std::vector<PeakFix> peak_fixes(const ProgramMemory& memory, const tpu::TpuTarget& target,
                                std::size_t top);
extern const std::size_t kFixedBuffers;  // how many buffers program_memory gives fixes for (5)

// The "memory_analysis" object of `tessera explain FILE --json`
// (docs/reference/json/explain.schema.json).
nlohmann::ordered_json program_memory_json(const ProgramMemory& memory);

// The HBM story on one screen: arguments, outputs, aliased, temporaries at the peak, the peak
// against the generation's HBM, the buffers alive there (at most `top`).
std::string program_memory_text(const ProgramMemory& memory, const tpu::TpuTarget& target,
                                std::size_t top);

}  // namespace tessera::inputs
