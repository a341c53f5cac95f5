#include "tessera/xla/tiled_layout.h"

#include "tessera/checked_arithmetic.h"
#include "tessera/error.h"
#include "tessera/xla/shape_limits.h"
#include "xla/tile_chain.h"

namespace tessera::xla {

TiledLayout::TiledLayout(Shape shape) : shape_(std::move(shape)) {
  check_shape_limits(shape_);  // shapes built in code (.npy headers, bindings) too
  TileChainShapes shapes = compute_tile_chain_shapes(shape_);
  physical_order_dims_ = shapes.physical_order_dims;
  steps_ = shapes.steps;
  physical_dims_ = shapes.physical_dims;
  tiled_elements_ = shapes.tiled_elements;
  const int64_t physical =
      round_up(tiled_elements_, shape_.layout.tail_padding_alignment_in_elements,
               "the number of elements with tail padding");
  const int bits = shape_.element_storage_bits();
  spec_chain_ = std::make_shared<TileChain>(shape_, shapes);
  if (auto form = compile_tiled_digit_form(shape_, shapes)) {
    index_map_ = std::make_shared<IndexMap>(shape_.dimensions, bits, physical, std::move(*form));
  } else {
    index_map_ = std::make_shared<IndexMap>(shape_.dimensions, bits, physical, spec_chain_);
  }
}

double TiledLayout::padding_fraction() const {
  if (physical_elements() == 0) return 0.0;
  return 1.0 - static_cast<double>(logical_elements()) / static_cast<double>(physical_elements());
}

int64_t TiledLayout::spec_linear_index(std::span<const int64_t> index) const {
  index_map_->check_index(index);
  return spec_chain_->offset_of(index);
}

std::vector<std::vector<int64_t>> TiledLayout::coordinates_by_level(
    std::span<const int64_t> index) const {
  if (static_cast<int>(index.size()) != shape_.rank()) index_map_->check_index(index);  // throws
  for (int64_t v : index) {
    if (v < 0) throw Error(ErrorKind::kOutOfRange, "index components must not be negative");
  }
  return static_cast<const TileChain&>(*spec_chain_).coordinates_by_level(index);
}

std::optional<std::vector<int64_t>> TiledLayout::spec_logical_index(int64_t offset) const {
  if (offset < 0 || offset >= physical_elements())
    return index_map_->logical_index(offset);  // throws
  return spec_chain_->index_at(offset);
}

}  // namespace tessera::xla
