// The TPU target profile (target_profile.h): the one place the era is dispatched.
#include "tessera/tpu/target_profile.h"

#include <utility>

#include "tessera/tpu/compiler_model.h"
#include "tessera/tpu/generations.h"
#include "tessera/tpu/profile_2020.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::tpu {

TileChoice choose_tpu_tiles(ElementType type, std::span<const int64_t> physical_order_dims,
                            const TpuTarget& target, bool with_rule) {
  const Generation generation = tpu_generation(target).generation;
  if (target.era == XlaEra::k2026) {
    // libtpu_tiles answers the types it has no observation of with the 2020 tiles itself.
    return libtpu_tiles(type, physical_order_dims, target, with_rule);
  }
  return tiles_2020(type, physical_order_dims, generation, target.pred);
}

bool is_untiled(const xla::Shape& shape) {
  return shape.layout.tiles.empty() && shape.layout.element_size_in_bits == 0;
}

std::string_view explain_default_target(const xla::Shape& shape) {
  return is_untiled(shape) ? "tpu" : "none";
}

xla::Shape layout_for_target(std::string_view text, const TpuTarget& target, TileChoice* choice) {
  bool layout_written = false;
  xla::Shape shape = xla::parse_shape(text, layout_written);
  return apply_target(
      std::move(shape), target, choice,
      layout_written ? DimensionOrder::kAsWritten : DimensionOrder::kCompilerChooses);
}

xla::Shape apply_target(xla::Shape shape, const TpuTarget& target, TileChoice* choice,
                        DimensionOrder order) {
  if (!target.is_tpu()) return shape;
  if (!is_untiled(shape)) {
    if (choice) {
      *choice = TileChoice{};
      choice->tiles = shape.layout.tiles;
      choice->element_size_in_bits = shape.layout.element_size_in_bits;
      choice->rule = "layout written with tiles or E(n): kept as written";
    }
    return shape;
  }
  if (target.era == XlaEra::k2026 && order == DimensionOrder::kCompilerChooses) {
    TileChoice chosen;
    xla::Shape device = libtpu_device_shape(shape.element_type, shape.dimensions, target,
                                            choice ? &chosen : nullptr);
    device.layout.memory_space = shape.layout.memory_space;
    device.layout.tail_padding_alignment_in_elements =
        shape.layout.tail_padding_alignment_in_elements;
    if (choice && device.layout.minor_to_major != shape.layout.minor_to_major) {
      chosen.reordered = true;
      chosen.written_minor_to_major = shape.layout.minor_to_major;
      chosen.written_order_bytes = xla::TiledLayout(apply_target(shape, target)).size_bytes();
    }
    if (choice) *choice = std::move(chosen);
    return device;
  }
  std::vector<int64_t> physical;
  const auto& m2m = shape.layout.minor_to_major;
  for (auto it = m2m.rbegin(); it != m2m.rend(); ++it) physical.push_back(shape.dimensions[*it]);
  TileChoice chosen = choose_tpu_tiles(shape.element_type, physical, target, choice != nullptr);
  shape.layout.tiles = chosen.tiles;
  shape.layout.element_size_in_bits = chosen.element_size_in_bits;
  if (choice) *choice = std::move(chosen);
  return shape;
}

}  // namespace tessera::tpu
