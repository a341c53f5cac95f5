// `--check-with-compiler`: ask the real TPU compiler (libtpu through jax[tpu], deviceless) what
// layout it gives a device array, to set beside tessera's model. The CLI carries the asking
// script (python/tessera/oracle.py, embedded at build time) and runs it in TESSERA_PYTHON, else
// python3; no tessera Python package is needed there, only jax[tpu].
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::cli {

extern const char* const kOracleScript;

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
