// A conversion operand written as text: an XLA shape with layout, or an NPU local-memory tensor
// "npu:DEVICE:N,C,H,W:DTYPE:ADDRESS[:LAYOUT[:MODE]]" whose buffer is the whole local memory
// image (X*S bytes, NPU 0 first), as the NPU spec's GDMA S2L/L2S transfers see it.
//
//   parse_layout_operand("f32[4,256,56,56]{3,2,1,0}")         // system memory, NCHW
//   parse_layout_operand("npu:bm1684:4,256,56,56:f32:0")     // aligned, at NPU 0 byte 0
//   parse_layout_operand("npu:npus=4,lmem=1024,align=128:2,3,4,5:f32:0x800:compact:none")
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/element_type.h"
#include "tessera/index_map.h"
#include "tessera/xla/shape.h"

namespace tessera::npu {
class LocalTensor;
}

namespace tessera::relayout {

struct LayoutOperand {
  ElementType type = ElementType::kF32;
  std::vector<int64_t> dims;
  std::string text;                   // canonical XLA text, or the NPU text as written
  std::shared_ptr<const void> owner;  // keeps the compiled layout that owns `map` alive
  const IndexMap* map = nullptr;
  std::shared_ptr<const npu::LocalTensor> npu_tensor;  // the tensor of an "npu:" operand
};

// Throws tessera::Error (from the XLA or NPU parsers, or kSyntax for a malformed "npu:" text).
LayoutOperand parse_layout_operand(std::string_view text);
LayoutOperand xla_operand(const xla::Shape& shape);

}  // namespace tessera::relayout
