// The planner modes (planner.h) as one table: parsing, names, caps and help all read it.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <string>
#include <vector>

#include "tessera/error.h"
#include "tessera/relayout/planner.h"
#include "tessera/utf8_text.h"

namespace tessera::relayout {
namespace {

constexpr std::array<PlannerModeInfo, 3> kModes{{
    {PlannerMode::kEstimate, "estimate", 0, 0,
     "wisdom if there is some, else the model; never times anything"},
    {PlannerMode::kMeasure, "measure", 2, 10,
     "wisdom if there is some, else times the candidates of the classes without it"},
    {PlannerMode::kPatient, "patient", 20, 60,
     "as measure, longer, and times again what only measure timed"},
}};

}  // namespace

std::span<const PlannerModeInfo> planner_modes() {
  return kModes;
}

const PlannerModeInfo& planner_mode_info(PlannerMode mode) {
  for (const PlannerModeInfo& m : kModes) {
    if (m.mode == mode) return m;
  }
  return kModes[0];
}

PlannerMode parse_planner_mode(std::string_view text) {
  std::vector<std::string> names;
  for (const PlannerModeInfo& m : kModes) {
    if (text == m.name) return m.mode;
    names.emplace_back(m.name);
  }
  throw Error(ErrorKind::kInvalid, fmt::format("planner mode '{}' is not one of {}",
                                               printable_utf8(text), fmt::join(names, ", ")));
}

const char* planner_mode_name(PlannerMode mode) {
  return planner_mode_info(mode).name;
}

}  // namespace tessera::relayout
