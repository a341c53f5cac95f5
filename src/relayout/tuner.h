// The planner's measurements (planner.h, `measure` and `patient`): the candidates of one problem
// class timed on a proxy, each try as a ratio to a copy in the same run.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <utility>

#include "relayout/wisdom.h"
#include "tessera/relayout/planner.h"

namespace tessera::relayout {

// The element type of `bytes`-byte proxies: "s8", "bf16", "f32", "f64".
const char* proxy_element_type(int bytes);

// The layouts (XLA or NPU text) of a proxy for `key` with about `bytes` of source: the same
// element size and row pitch, and the class's own kernel; none for a class without one.
std::optional<std::pair<std::string, std::string>> proxy_layouts(const ProblemKey& key,
                                                                 int64_t bytes);

// Times the candidates for `key` on a proxy of its size class until `deadline` at most and
// records the fastest in the process's wisdom. Returns false when the class has no proxy, when
// not every candidate could be timed once, or when called from within a measurement (the
// planner and the tuner call each other once at most: the tuner's plans are made in estimate
// mode, plan_internals.h's plan_candidate).
bool measure_problem(const ProblemKey& key, PlannerMode mode,
                     std::chrono::steady_clock::time_point deadline);

}  // namespace tessera::relayout
