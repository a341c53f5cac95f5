// The text of a fixture under tests/inputs/fixtures (found from any working directory).
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace tessera::test_support {

inline std::string read_fixture(const std::string& name) {
  const auto path = std::filesystem::path(TESSERA_TESTS_DIR) / "inputs" / "fixtures" / name;
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace tessera::test_support
