#include "tessera/xla/layout_report.h"

#include <fmt/format.h>

#include "tessera/checked_arithmetic.h"
#include "tessera/xla/notation.h"

namespace tessera::xla {

std::string format_dims(const std::vector<int64_t>& dims) {
  std::string out = "(";
  for (std::size_t i = 0; i < dims.size(); ++i) out += fmt::format("{}{}", i ? "," : "", dims[i]);
  return out + ")";
}

namespace {

int64_t logical_bytes(const TiledLayout& layout) {
  return bytes_for_bits(layout.logical_elements(), bit_width(layout.shape().element_type));
}

}  // namespace

nlohmann::ordered_json layout_report_json(const TiledLayout& layout) {
  const Shape& shape = layout.shape();
  nlohmann::ordered_json tiles = nlohmann::ordered_json::array();
  for (const Tile& tile : shape.layout.tiles) tiles.push_back(tile.dimensions);
  nlohmann::ordered_json steps = nlohmann::ordered_json::array();
  for (const TilingStep& step : layout.steps()) {
    steps.push_back({{"tile", print_tile(step.tile)},
                     {"prepended_dims", step.prepended_dims},
                     {"input_dims", step.input_dims},
                     {"combined_dims", step.combined_dims},
                     {"padded_dims", step.padded_dims},
                     {"reshaped_dims", step.reshaped_dims},
                     {"output_dims", step.output_dims}});
  }
  return {
      {"canonical", print_shape(shape)},
      {"dtype", std::string(element_type_name(shape.element_type))},
      {"element_bits", layout.element_bits()},
      {"dims", shape.dimensions},
      {"minor_to_major", shape.layout.minor_to_major},
      {"tiles", tiles},
      {"tail_padding_alignment", shape.layout.tail_padding_alignment_in_elements},
      {"memory_space", shape.layout.memory_space},
      {"physical_order_dims", layout.physical_order_dims()},
      {"physical_dims", layout.physical_dims()},
      {"steps", steps},
      {"logical_elements", layout.logical_elements()},
      {"tiled_elements", layout.tiled_elements()},
      {"physical_elements", layout.physical_elements()},
      {"logical_bytes", logical_bytes(layout)},
      {"size_bytes", layout.size_bytes()},
      {"padding_fraction", layout.padding_fraction()},
      {"has_digit_form", layout.index_map().digit_form() != nullptr},
  };
}

std::string layout_report_text(const TiledLayout& layout) {
  const Shape& shape = layout.shape();
  std::string out;
  out += fmt::format("shape             {}\n", print_shape(shape));
  out += fmt::format("element type      {} ({} bits stored per element)\n",
                     element_type_name(shape.element_type), layout.element_bits());
  out += fmt::format("logical dims      {}\n", format_dims(shape.dimensions));
  out += fmt::format("physical order    {}  (minor_to_major {})\n",
                     format_dims(layout.physical_order_dims()),
                     format_dims(shape.layout.minor_to_major));
  int level = 1;
  for (const TilingStep& step : layout.steps()) {
    out += fmt::format("tile level {}      T{} on {}", level++, print_tile(step.tile),
                       format_dims(step.input_dims));
    if (step.prepended_dims > 0)
      out += fmt::format(" ({} leading size-1 dims added)", step.prepended_dims);
    out += "\n";
    if (step.combined_dims != step.input_dims) {
      out += fmt::format("  combine '*'     {}\n", format_dims(step.combined_dims));
    }
    out += fmt::format("  1. pad          {}\n", format_dims(step.padded_dims));
    out += fmt::format("  2. reshape      {}\n", format_dims(step.reshaped_dims));
    out += fmt::format("  3. transpose    {}\n", format_dims(step.output_dims));
  }
  out += fmt::format("physical dims     {}\n", format_dims(layout.physical_dims()));
  out +=
      fmt::format("elements          {} logical, {} physical ({} from tiles",
                  layout.logical_elements(), layout.physical_elements(), layout.tiled_elements());
  if (shape.layout.tail_padding_alignment_in_elements != 1) {
    out += fmt::format(", rounded up to L({})", shape.layout.tail_padding_alignment_in_elements);
  }
  out += ")\n";
  out += fmt::format("size              {} bytes ({} bytes of data)\n", layout.size_bytes(),
                     logical_bytes(layout));
  out +=
      fmt::format("padding           {:.2f}% of the elements\n", 100.0 * layout.padding_fraction());
  return out;
}

}  // namespace tessera::xla
