// `--check-with-cmodel`: ask the chip's own C model (the tpu-mlir wheel's library, loaded by
// python/tessera/cmodel.py, embedded at build time and run in TESSERA_PYTHON, else python3, with
// numpy) where its GDMA copy puts every element, and set that beside tessera's places.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "tessera/npu/cmodel_check.h"

namespace tessera::cli {

extern const char* const kCModelScript;

struct CModelCheck {
  npu::CModelComparison comparison;
  std::string chip;
  std::string tpu_mlir;
  nlohmann::ordered_json json() const;
  std::string text() const;
};

// Throws Error(kUnsupported) saying how to get the C models when they are not in the cache,
// Error(kInvalid) with the model's words when it refuses the copy.
CModelCheck check_with_cmodel(const npu::LocalTensor& tensor);
CModelCheck check_with_cmodel(const npu::MatrixLayout& matrix);

}  // namespace tessera::cli
