// Finding the files of one compiled module in an XLA dump (tessera/inputs/xla_dump_files.h).
// The names are XLA's: tests/fixtures/tpu_memory keeps them after the module's prefix.
#include "tessera/inputs/xla_dump_files.h"

#include <fmt/format.h>

#include <charconv>
#include <filesystem>
#include <system_error>

#include "tessera/error.h"
#include "tessera/file_errors.h"
#include "tessera/inputs/input_arrays.h"
#include "tessera/inputs/program_memory.h"
#include "tessera/utf8_text.h"
#include "text_lines.h"

namespace tessera::inputs {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kModule = "after_optimizations.txt";
constexpr std::string_view kAssignment = "after_optimizations-buffer-assignment.txt";
constexpr std::string_view kReport = "after_optimizations-memory-usage-report.txt";

std::string existing(const std::string& path) {
  std::error_code error;
  return fs::is_regular_file(path, error) ? path : "";
}

// "module_0003.jit_f.cl_1.after_optimizations.txt", or the name alone (as the fixtures keep it).
bool named_as(const std::string& name, std::string_view suffix) {
  return name == suffix || (name.size() > suffix.size() && name.ends_with(suffix) &&
                            name[name.size() - suffix.size() - 1] == '.');
}

// The integer at the start of `text` (after spaces), or -1.
int64_t leading_number(std::string_view text) {
  const std::size_t start = text.find_first_not_of(' ');
  if (start == std::string_view::npos) return -1;
  int64_t value = -1;
  std::from_chars(text.data() + start, text.data() + text.size(), value);
  return value;
}

// How large the program a dump's files belong to is: its report's HBM total, else the size of
// its buffer assignment or module file.
int64_t program_size(const XlaDumpFiles& files) {
  if (!files.memory_usage_report.empty()) {
    const auto totals = memory_usage_report_totals(read_input_text(files.memory_usage_report));
    if (const auto hbm = totals.find(0); hbm != totals.end()) return hbm->second;
  }
  std::error_code error;
  const auto size = fs::file_size(files.main(), error);
  return error ? 0 : static_cast<int64_t>(size);
}

}  // namespace

XlaDumpFiles dump_files_beside(const std::string& module_path) {
  XlaDumpFiles files;
  if (module_path.ends_with(kAssignment)) {  // the buffer assignment given alone
    files.buffer_assignment = module_path;
    files.memory_usage_report = existing(
        module_path.substr(0, module_path.size() - kAssignment.size()) + std::string(kReport));
    return files;
  }
  files.module = module_path;
  if (!module_path.ends_with(kModule)) return files;
  const std::string stem = module_path.substr(0, module_path.size() - kModule.size());
  files.buffer_assignment = existing(stem + std::string(kAssignment));
  files.memory_usage_report = existing(stem + std::string(kReport));
  return files;
}

XlaDumpFiles dump_folder_files(const std::string& folder) {
  std::error_code error;
  std::vector<XlaDumpFiles> programs;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    const std::string path = it->path().string();
    const std::string name = it->path().filename().string();
    if (named_as(name, kModule)) {
      programs.push_back(dump_files_beside(path));
    } else if (named_as(name, kAssignment) &&
               existing(path.substr(0, path.size() - kAssignment.size()) + std::string(kModule))
                   .empty()) {
      XlaDumpFiles alone;
      alone.buffer_assignment = path;
      alone.memory_usage_report =
          existing(path.substr(0, path.size() - kAssignment.size()) + std::string(kReport));
      programs.push_back(std::move(alone));
    }
  }
  if (error) throw file_error("read", folder, error.value());
  if (programs.empty()) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("'{}' holds no *.{} nor *.{}: give the folder XLA_FLAGS=--xla_dump_to "
                            "wrote, or one of its files",
                            printable_utf8(folder), kModule, kAssignment));
  }
  const XlaDumpFiles* largest = nullptr;
  int64_t largest_size = -1;
  for (const XlaDumpFiles& p : programs) {
    const int64_t size = program_size(p);
    // Ties go to the later module (a dump numbers modules in the order they are compiled).
    if (size > largest_size || (size == largest_size && p.main() > largest->main())) {
      largest = &p;
      largest_size = size;
    }
  }
  return *largest;
}

XlaDumpFiles dump_files_named(const std::vector<std::string>& paths) {
  XlaDumpFiles named;
  auto put = [](std::string& slot, const std::string& path, std::string_view what) {
    if (!slot.empty()) {
      throw Error(ErrorKind::kInvalid, fmt::format("two {}s given: '{}' and '{}'", what,
                                                   printable_utf8(slot), printable_utf8(path)));
    }
    slot = path;
  };
  for (const std::string& path : paths) {
    const std::string text = read_input_text(path);
    if (is_buffer_assignment(text)) {
      put(named.buffer_assignment, path, "buffer assignment");
    } else if (is_memory_usage_report(text)) {
      put(named.memory_usage_report, path, "memory-usage report");
    } else if (text.find("HloModule") != std::string::npos) {
      put(named.module, path, "HLO module");
    } else {
      throw Error(ErrorKind::kInvalid,
                  fmt::format("'{}' is neither an HLO module nor the compiler's "
                              "*-buffer-assignment.txt or *-memory-usage-report.txt",
                              printable_utf8(path)));
    }
  }
  if (named.module.empty() && named.buffer_assignment.empty()) {
    throw Error(ErrorKind::kInvalid,
                "a memory-usage report says what the compiler allocated, not which buffers are "
                "arguments, outputs or temporaries: give its module or buffer assignment with it");
  }
  if (!named.module.empty()) {
    const XlaDumpFiles beside = dump_files_beside(named.module);
    if (named.buffer_assignment.empty()) named.buffer_assignment = beside.buffer_assignment;
    if (named.memory_usage_report.empty()) named.memory_usage_report = beside.memory_usage_report;
  }
  return named;
}

bool is_memory_usage_report(std::string_view text) {
  const std::size_t start = text.find_first_not_of(" \t\r\n");
  return start != std::string_view::npos && text.substr(start).starts_with("Memory Space: ");
}

std::map<int64_t, int64_t> memory_usage_report_totals(std::string_view text) {
  // "Memory Space: default (color=0)" then "Total bytes: 286720 (280.0KiB)".
  std::map<int64_t, int64_t> totals;
  int64_t color = -1;
  for_each_numbered_line(text, [&](std::string_view line, int64_t line_number) {
    if (line.starts_with("Memory Space: ")) {
      const std::size_t at = line.find("(color=");
      color = at == std::string_view::npos ? -1 : leading_number(line.substr(at + 7));
      if (color < 0) {
        throw Error(ErrorKind::kSyntax,
                    fmt::format("memory-usage report line {}: a memory space without its color",
                                line_number));
      }
      return;
    }
    if (line.starts_with("Total bytes: ") && color >= 0) {
      const int64_t total = leading_number(line.substr(13));
      if (total < 0) {
        throw Error(ErrorKind::kSyntax,
                    fmt::format("memory-usage report line {}: 'Total bytes:' without a number",
                                line_number));
      }
      totals[color] = total;
      color = -1;
    }
  });
  if (totals.empty()) {
    throw Error(ErrorKind::kInvalid, "the memory-usage report gives no memory space's total");
  }
  return totals;
}

}  // namespace tessera::inputs
