// Choosing addresses for a plan's "auto" tensors (internal; the rule is in plan_check.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tessera/npu/local_plan.h"

namespace tessera::npu::detail {

struct AutoPlacement {
  std::string explanation;           // "" for fixed tensors
  std::optional<int64_t> free_band;  // not placed: the longest band a start offset could have
};

// Returns the plan with every auto tensor that a free band could hold given an address, and every
// matrix "best" width fixed to its number (at the tensor's address); and per tensor how it was
// placed.
LocalPlan place_auto_tensors(const LocalPlan& plan, std::vector<AutoPlacement>& placements);

}  // namespace tessera::npu::detail
