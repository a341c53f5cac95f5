// A strided array (tessera/relayout/strided_array.h) as one side of a relayout plan: an IndexMap
// of its footprint for sizes and the general walk, and a digit form for the common refinement.
// The digit form is kept apart from the IndexMap because it may do what IndexMap's may not:
// negative strides (reversed views) and, for a source, no digit at all for a zero-stride
// (broadcast) dimension. The plan turns it into strided boxes, which take signed strides.
#pragma once

#include "tessera/index_map.h"
#include "tessera/relayout/strided_array.h"

namespace tessera::relayout {

struct StridedOperand {
  IndexMap map;  // function form: offset = base + sum e_i * stride_i, in elements
  DigitForm form;
};

// Validates (check_strided_array) and describes `array`; offsets count from its footprint's
// lowest byte. Throws Error(kArgument) as check_strided_array.
StridedOperand strided_operand(const StridedArray& array, StridedUse use);

}  // namespace tessera::relayout
