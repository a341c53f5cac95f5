// Choosing addresses for a plan's "auto" tensors (internal; the rule is in plan_check.h).
#pragma once

#include <string>
#include <vector>

#include "tessera/npu/local_plan.h"

namespace tessera::npu::detail {

// Returns the plan with every auto tensor that a free band could hold given an address (matrix
// "best" widths fixed to numbers), and per tensor the explanation ("" for fixed tensors).
LocalPlan place_auto_tensors(const LocalPlan& plan, std::vector<std::string>& explanations);

}  // namespace tessera::npu::detail
