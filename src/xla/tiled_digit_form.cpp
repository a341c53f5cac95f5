// Compiles a tiled layout into the digit form of IndexMap (docs/design/index-map.md: permute,
// combine, split).
//
// Each physical dimension is tracked as a list of digits, most significant first, whose extents
// multiply to the dimension's size. '*' concatenates two lists. A tile t splits a list into
// (major, minor) where the minor digits multiply to exactly t, splitting one digit if needed.
// A digit may only be split unevenly (ceil, creating padding) when it is the most significant
// digit of its logical dimension and of the list: then padding is exactly "e >= d".
#include <optional>

#include "xla/tile_chain.h"

namespace tessera::xla {
namespace {

struct SymbolicDigit {
  int dimension;  // Digit::kPaddingAxis for dims that exist only in the tiling (value 0 is data)
  int64_t weight;
  int64_t extent;
  bool most_significant;  // of its logical dimension: may be padded
};
using SymbolicDim = std::vector<SymbolicDigit>;

const SymbolicDigit kUnitDigit{Digit::kPaddingAxis, 1, 1, true};

struct Split {
  SymbolicDim major;
  SymbolicDim minor;
};

std::optional<Split> split(SymbolicDim dim, int64_t t) {
  if (dim.empty()) dim.push_back(kUnitDigit);
  Split out;
  int64_t covered = 1;  // product of the extents moved into `minor`
  std::size_t i = dim.size();
  while (covered < t) {
    --i;
    const SymbolicDigit& g = dim[i];
    if (i > 0 && t % (covered * g.extent) == 0) {  // the whole digit lies inside the tile
      out.minor.insert(out.minor.begin(), g);
      covered *= g.extent;
      continue;
    }
    if (t % covered != 0) return std::nullopt;  // the tile boundary cuts between digits unevenly
    const int64_t low_extent = t / covered;
    SymbolicDigit low{g.dimension, g.weight, low_extent, false};
    SymbolicDigit high{g.dimension, g.weight * low_extent, 0, g.most_significant};
    if (g.extent % low_extent == 0) {
      high.extent = g.extent / low_extent;
    } else if (i == 0 && (g.most_significant || g.dimension == Digit::kPaddingAxis)) {
      high.extent = (g.extent + low_extent - 1) / low_extent;  // padded: e >= d is padding
    } else {
      return std::nullopt;
    }
    out.minor.insert(out.minor.begin(), low);
    out.major.assign(dim.begin(), dim.begin() + static_cast<std::ptrdiff_t>(i));
    out.major.push_back(high);
    return out;
  }
  out.major.assign(dim.begin(), dim.begin() + static_cast<std::ptrdiff_t>(i));
  return out;
}

}  // namespace

std::optional<DigitForm> compile_tiled_digit_form(const Shape& shape,
                                                  const TileChainShapes& shapes) {
  for (int64_t d : shape.dimensions) {
    if (d == 0) return std::nullopt;  // nothing to place
  }
  const auto& m2m = shape.layout.minor_to_major;
  std::vector<SymbolicDim> dims;
  for (std::size_t k = 0; k < m2m.size(); ++k) {
    const int dim = static_cast<int>(m2m[m2m.size() - 1 - k]);
    dims.push_back({{dim, 1, shape.dimensions[dim], true}});
  }
  for (const TilingStep& step : shapes.steps) {
    dims.insert(dims.begin(), static_cast<std::size_t>(step.prepended_dims),
                SymbolicDim{kUnitDigit});
    const std::size_t k = step.tile.dimensions.size();
    const std::size_t first = dims.size() - k;
    std::vector<SymbolicDim> next(dims.begin(), dims.begin() + static_cast<std::ptrdiff_t>(first));
    std::vector<SymbolicDim> minors;
    SymbolicDim pending;
    std::size_t tiled = 0;
    for (std::size_t i = 0; i < k; ++i) {
      pending.insert(pending.end(), dims[first + i].begin(), dims[first + i].end());
      if (step.tile.dimensions[i] == Tile::kCombineDimension) continue;
      auto parts = split(std::move(pending), step.tile_dims[tiled++]);
      pending.clear();
      if (!parts) return std::nullopt;
      next.push_back(std::move(parts->major));
      minors.push_back(std::move(parts->minor));
    }
    next.insert(next.end(), minors.begin(), minors.end());
    dims = std::move(next);
  }
  // Row-major strides over the final shape, then each digit's stride inside its dimension.
  DigitForm form;
  int64_t stride = 1;
  for (std::size_t k = dims.size(); k-- > 0;) {
    int64_t inner = stride;
    int64_t size = 1;
    for (std::size_t i = dims[k].size(); i-- > 0;) {
      const SymbolicDigit& g = dims[k][i];
      form.digits.insert(form.digits.begin(), Digit{g.dimension, g.weight, g.extent, inner});
      inner *= g.extent;
      size *= g.extent;
    }
    if (size != shapes.physical_dims[k]) return std::nullopt;  // defensive: shapes disagree
    stride *= size;
  }
  for (Digit& d : form.digits) {
    if (d.dimension == Digit::kPaddingAxis) d.weight = 1;
  }
  return form;
}

}  // namespace tessera::xla
