// The files XLA_FLAGS=--xla_dump_to=DIR writes for each compiled module that `tessera explain`
// reads: the optimized module and, beside it, the compiler's buffer assignment and its
// memory-usage report. Given a folder, the largest program's; given several files, each told
// apart by its text.
//
// Example: DIR/module_0003.jit_f.cl_1.after_optimizations.txt,
//          DIR/module_0003.jit_f.cl_1.after_optimizations-buffer-assignment.txt,
//          DIR/module_0003.jit_f.cl_1.after_optimizations-memory-usage-report.txt
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::inputs {

struct XlaDumpFiles {
  std::string module;               // "" when only the compiler's files were given
  std::string buffer_assignment;    // "" when absent
  std::string memory_usage_report;  // "" when absent
  // The file whose arrays `explain` lists: the module, else the buffer assignment.
  const std::string& main() const { return module.empty() ? buffer_assignment : module; }
};

// The buffer assignment and memory-usage report XLA writes beside `module_path` (named
// "...after_optimizations.txt"), where they exist; "" for a path not named so.
XlaDumpFiles dump_files_beside(const std::string& module_path);

// The files of the largest program in a dump folder (by the memory-usage report's total bytes,
// else the buffer assignment's size, else the module's): a dump holds a module per jit call,
// and the one that runs out of memory is the largest. Throws Error naming the folder when it
// holds no optimized module nor buffer assignment.
XlaDumpFiles dump_folder_files(const std::string& folder);

// Files the user named together (a module, its buffer assignment, its memory-usage report, in
// any order), told apart by their text; the siblings beside the module fill what is not named.
// Throws Error naming the file that is none of the three, or the kind named twice.
XlaDumpFiles dump_files_named(const std::vector<std::string>& paths);

// True when the text is a module's *-memory-usage-report.txt ("Memory Space: ...").
bool is_memory_usage_report(std::string_view text);

// The report's "Total bytes" of each memory space (color): every allocation the compiler made
// there, its index tables, constants and scalars included. Throws Error naming the line when a
// space has no total.
std::map<int64_t, int64_t> memory_usage_report_totals(std::string_view text);

}  // namespace tessera::inputs
