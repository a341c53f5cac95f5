// The compiler's dump files found and read as `tessera explain` takes them: the memory-usage
// report's totals (tests/fixtures/tpu_memory, tools/tpu_oracle/memory_programs.py), a malformed
// report named by its line, a dump folder's largest program, files named together.
#include "tessera/inputs/xla_dump_files.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tessera/error.h"

namespace tessera::inputs {
namespace {

namespace fs = std::filesystem;

const fs::path kDumpFixtures = fs::path(TESSERA_TESTS_DIR) / "fixtures" / "tpu_memory";

std::string read_dump_file(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(XlaDumpFiles, MemoryUsageReportTotalsPerColor) {
  const std::string report = read_dump_file(kDumpFixtures / "v5e_mlp_train" /
                                            "after_optimizations-memory-usage-report.txt");
  ASSERT_TRUE(is_memory_usage_report(report));
  const std::map<int64_t, int64_t> expected{{0, 3944960}, {1, 4335616}, {2, 28}};
  EXPECT_EQ(memory_usage_report_totals(report), expected);
}

TEST(XlaDumpFiles, MalformedReportNamesTheLine) {
  try {
    memory_usage_report_totals("Memory Space: default (color=0)\nTotal bytes: many\n");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(memory_usage_report_totals("Memory Space: default\n"), Error);
  EXPECT_THROW(memory_usage_report_totals("Memory Space: x (color=0)\n"), Error);  // no total
}

TEST(XlaDumpFiles, FolderGivesItsLargestProgramAndTheFilesBesideIt) {
  const fs::path folder = fs::temp_directory_path() / "tessera_xla_dump_files_test";
  fs::remove_all(folder);
  fs::create_directories(folder);
  for (const auto& [prefix, fixture] : {std::pair{"module_0001.jit_a", "v5e_lm_head_oom"},
                                        std::pair{"module_0002.jit_b", "v5e_mlp_train"}}) {
    for (const char* name : {"after_optimizations.txt", "after_optimizations-buffer-assignment.txt",
                             "after_optimizations-memory-usage-report.txt"}) {
      fs::copy_file(kDumpFixtures / fixture / name, folder / (std::string(prefix) + "." + name));
    }
  }
  const XlaDumpFiles files = dump_folder_files(folder.string());
  EXPECT_EQ(fs::path(files.module).filename(), "module_0001.jit_a.after_optimizations.txt");
  EXPECT_EQ(fs::path(files.buffer_assignment).filename(),
            "module_0001.jit_a.after_optimizations-buffer-assignment.txt");
  EXPECT_EQ(fs::path(files.memory_usage_report).filename(),
            "module_0001.jit_a.after_optimizations-memory-usage-report.txt");
  fs::remove_all(folder);
  fs::create_directories(folder);
  EXPECT_THROW(dump_folder_files(folder.string()), Error);  // holds nothing of a dump
  fs::remove_all(folder);
}

TEST(XlaDumpFiles, NamedFilesAreToldApartByTheirText) {
  const fs::path dir = kDumpFixtures / "v5e_mlp_train";
  const XlaDumpFiles files =
      dump_files_named({(dir / "after_optimizations-memory-usage-report.txt").string(),
                        (dir / "after_optimizations.txt").string()});
  EXPECT_EQ(files.module, (dir / "after_optimizations.txt").string());
  // Not named, found beside the module.
  EXPECT_EQ(files.buffer_assignment, (dir / "after_optimizations-buffer-assignment.txt").string());
  EXPECT_THROW(dump_files_named({(dir / "after_optimizations.txt").string(),
                                 (dir / "after_optimizations.txt").string()}),
               Error);
  EXPECT_THROW(dump_files_named({(dir / "after_optimizations-memory-usage-report.txt").string()}),
               Error);
}

}  // namespace
}  // namespace tessera::inputs
