// Local memory over the timesteps of tpu-mlir's layer groups (tpu_mlir_local_plan.h), drawn as
// the plan picture (npu_plan_picture.h) draws NPUs: one column per timestep of each group, byte
// offsets inside every NPU down the side, each block coloured by the tensor alive in that
// timestep whose band covers most of it, red where two tensors alive together share a byte.
#pragma once

#include <string>

#include "tessera/npu/tpu_mlir_local_plan.h"
#include "tessera/render/npu_plan_picture.h"

namespace tessera::render {

// At most kMaxPlanPictureNpus columns (the first timesteps; the subtitle says so).
NpuPlanPicture build_tpu_mlir_plan_picture(const npu::TpuMlirPlanCheck& check);

}  // namespace tessera::render
