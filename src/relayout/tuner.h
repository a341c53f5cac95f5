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

// The layouts (XLA or NPU text) of a proxy for `key` with about `bytes` of source: the same
// element size and row pitch, and the class's own kernel; none for a class without one.
std::optional<std::pair<std::string, std::string>> proxy_layouts(const ProblemKey& key,
                                                                 int64_t bytes);

// Bytes of a proxy's source on this host: twice the last-level cache, 64 MiB to 256 MiB.
int64_t proxy_bytes();

// Times the candidates for `key` until `deadline` at most and records the fastest in the
// process's wisdom. Returns false when the class has no proxy or nothing could be timed.
bool measure_problem(const ProblemKey& key, PlannerMode mode,
                     std::chrono::steady_clock::time_point deadline);

}  // namespace tessera::relayout
