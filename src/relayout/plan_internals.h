// Plans for the benchmarks' reference points, not for conversions (src/ is on tessera_bench's
// include path).
#pragma once

#include <string>

#include "relayout/kernel_variant.h"
#include "relayout/plan_choices.h"
#include "tessera/relayout/relayout_plan.h"

namespace tessera::relayout {

// The plan `plan(source, destination, options)` makes, with its transposes moving the same lines
// untransposed: the access pattern's own speed limit on this host (BM_TransposeCeiling). What it
// writes is not the conversion.
RelayoutPlan plan_without_shuffle(const IndexMap& source, const IndexMap& destination,
                                  RelayoutOptions options);

// The kernel class of the plan's largest piece of work (KernelClass::kNone when it has none):
// the class whose variants decide its speed.
KernelClass main_kernel_class(const RelayoutPlan& plan);

// That piece's row pitch class ("page", "line", "odd"; plan_classes.h), as its wisdom is keyed.
std::string main_pitch(const RelayoutPlan& plan);

// Whether that piece's kernel writes with non-temporal stores (what a runs variant's `auto`
// store became).
bool main_streams(const RelayoutPlan& plan);

// The tuner's candidate: the plan with every box of `forced.kernel_class` running
// `forced.variant` (a value: no name is parsed) and the other boxes the model's, in estimate mode
// whatever the caller's mode, so that measuring a candidate never measures again.
RelayoutPlan plan_candidate(const IndexMap& source, const IndexMap& destination, int threads,
                            const ClassVariant& forced);

// That piece's variant and where it came from: "staged-r32-l1-g1024-avx3 (model)"; "" for none.
std::string main_variant(const RelayoutPlan& plan);

}  // namespace tessera::relayout
