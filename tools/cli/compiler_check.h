// `--check-with-compiler`: ask the real TPU compiler (libtpu through jax[tpu], deviceless) what
// layout it gives a device array, to set beside tessera's model. The CLI carries the asking
// script (python/tessera/oracle.py, embedded at build time) and runs it in TESSERA_PYTHON, else
// python3; no tessera Python package is needed there, only jax[tpu].
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/explain/compiler_reply.h"

namespace tessera::cli {

extern const char* const kOracleScript;

// TESSERA_PYTHON, else "python3".
std::string python_command();

// Runs `python -c SCRIPT ARGUMENTS...`, writes `request` to its stdin, closes it and returns its
// stdout; its stderr goes to /dev/null. Throws Error(kUnsupported) naming `option` when the
// interpreter does not start, Error(kIo) when the child prints more than `max_bytes` or answers
// nothing within TESSERA_COMPILER_SECONDS (300 s): its whole process group is then ended.
std::string run_python_script(const std::string& python, const char* script,
                              const std::vector<std::string>& arguments, const std::string& request,
                              std::string_view option,
                              std::size_t max_bytes = explain::kMaxCompilerReplyBytes);

// The two lines an oracle script prints: its hello ({"ready": ...} or {"unavailable": why}) and
// its answer, each discarded (is_discarded()) when it is not JSON.
struct ScriptReply {
  nlohmann::json hello;
  nlohmann::json answer;
  bool ready() const { return hello.is_object() && hello.contains("ready"); }
  // The hello's "unavailable" reason, else `otherwise`.
  std::string why_unavailable(std::string_view otherwise) const;
};
ScriptReply parse_script_reply(const std::string& out);

struct CompilerAnswer {
  std::string layout;      // "f32[1024,3]{0,1:T(4,128)}"
  int64_t size_bytes = 0;  // memory_analysis().argument_size_in_bytes
  std::string python;
  std::string jax;
  std::string libtpu;
};

// What the compiler gives `shape_text` (a shape without a layout: "f32[1024,3]") on `target`
// ("tpu-v5e"). Throws Error(kUnsupported) naming the Python and the install command when jax[tpu]
// is missing, Error(kInvalid) with the compiler's words when it refuses the array.
CompilerAnswer ask_compiler(std::string_view element_type, const std::vector<int64_t>& dims,
                            std::string_view target);

}  // namespace tessera::cli
