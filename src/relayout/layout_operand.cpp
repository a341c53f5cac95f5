#include "tessera/relayout/layout_operand.h"

#include <fmt/format.h>

#include "tessera/error.h"
#include "tessera/npu/npu_arguments.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::relayout {
namespace {

constexpr std::string_view kNpuPrefix = "npu:";

LayoutOperand npu_operand(std::string_view text) {
  std::vector<std::string> fields;
  std::size_t start = kNpuPrefix.size();
  while (true) {
    const std::size_t colon = text.find(':', start);
    fields.emplace_back(text.substr(
        start, colon == std::string_view::npos ? std::string_view::npos : colon - start));
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  if (fields.size() < 4 || fields.size() > 6) {
    throw Error(
        ErrorKind::kSyntax,
        fmt::format("'{}': an NPU tensor is npu:DEVICE:N,C,H,W:DTYPE:ADDRESS[:LAYOUT[:MODE]] "
                    "(e.g. npu:bm1684:4,256,56,56:f32:0)",
                    text));
  }
  npu::TensorArguments arguments;
  arguments.device = fields[0];
  arguments.shape = fields[1];
  arguments.dtype = fields[2];
  arguments.address = fields[3];
  if (fields.size() > 4) arguments.layout = fields[4];
  if (fields.size() > 5) arguments.mode = fields[5];
  auto tensor = std::make_shared<const npu::LocalTensor>(npu::make_local_tensor(arguments));
  const IndexMap& map = tensor->index_map();
  return {tensor->element_type(), map.dims(), std::string(text), tensor, &map, tensor};
}

}  // namespace

LayoutOperand xla_operand(const xla::Shape& shape) {
  auto layout = std::make_shared<const xla::TiledLayout>(shape);
  return {shape.element_type,   shape.dimensions, xla::print_shape(shape), layout,
          &layout->index_map(), nullptr};
}

LayoutOperand parse_layout_operand(std::string_view text) {
  if (text.starts_with(kNpuPrefix)) return npu_operand(text);
  return xla_operand(xla::parse_shape(text));
}

}  // namespace tessera::relayout
