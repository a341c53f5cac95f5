// The sample report `tessera explain` shows without arguments. The allocations are real ones
// printed by XLA in public threads (shape and sizes as printed; the labels are shortened):
// jax#7502 (s32[8388608,8,4], 32x), EasyDeL#166 (f32[32,4096,4096]), ColabFold#62
// (f32[1024,245,64]), pytorch/xla#1965 (bf16[16,12,512,512]); the fifth is made up for the sample.
#include "tessera/inputs/input_explanation.h"

namespace tessera::inputs {

std::string_view sample_oom_report() {
  return R"(RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used 50.16G of 15.48G hbm. Exceeded hbm capacity by 34.68G.

  Largest program allocations in hbm:

  1. Size: 32.00G
     Shape: s32[8388608,8,4]{2,1,0:T(8,128)}
     Unpadded size: 1.00G
     Extra memory due to padding: 31.00G (32.0x expansion)
     XLA label: fusion.2 = fusion(param.1), kind=kLoop, calls=fused_computation.2
     Allocation type: HLO temp
     ==========================

  2. Size: 16.00G
     Shape: s32[2048,1,128,128,4]{4,3,2,1,0:T(8,128)}
     Unpadded size: 512.00M
     Extra memory due to padding: 15.50G (32.0x expansion)
     XLA label: broadcast.7 = s32[2048,1,128,128,4]{4,3,2,1,0:T(8,128)} broadcast(constant.3)
     Allocation type: HLO temp
     ==========================

  3. Size: 2.00G
     Shape: f32[32,4096,4096]{1,2,0:T(8,128)}
     Unpadded size: 2.00G
     XLA label: fusion.1265.remat3 = fusion(custom-call.224, custom-call.241), kind=kOutput
     Allocation type: HLO temp
     ==========================

  4. Size: 96.00M
     Shape: bf16[16,12,512,512]{3,2,1,0:T(8,128)(2,1)}
     Unpadded size: 96.00M
     XLA label: %reshape.152459 = bf16[16,12,512,512]{3,2,1,0:T(8,128)(2,1)} reshape(bf16[12582912,4]{1,0:T(8,128)(2,1)} %fusion.41499)
     Allocation type: HLO temp
     ==========================

  5. Size: 64.00M
     Shape: f32[1024,245,64]{1,2,0:T(8,128)}
     Unpadded size: 61.25M
     Extra memory due to padding: 2.75M (1.0x expansion)
     XLA label: %broadcast.82209 = f32[1024,245,64]{1,2,0:T(8,128)} broadcast(f32[]{:T(256)} %get-tuple-element.480687), dimensions={}
     Allocation type: HLO temp
     ==========================
)";
}

}  // namespace tessera::inputs
