// The planner's part of building a plan (planner.h): each box's kernel variant, from a forced
// name, wisdom, a measurement or the model, and what the variant changes in the box and kernel.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "relayout/copy_kernels.h"
#include "relayout/kernel_variant.h"
#include "relayout/size_class.h"
#include "tessera/relayout/relayout_plan.h"

namespace tessera::relayout {

struct ChosenVariant {
  KernelVariant variant;  // resolved
  std::string origin;     // "model", "measured 2026-11-27 on this host", "forced"
  std::string pitch;      // the box's row pitch class (plan_classes.h), as looked up
};

// Outputs from this size stream (relayout_plan.cpp); wisdom is measured and read for them.
constexpr int64_t kWisdomBytes = int64_t{4} << 20;

// A variant given as a value for one kernel class (the tuner's candidates).
struct ClassVariant {
  KernelClass kernel_class = KernelClass::kNone;
  KernelVariant variant;
};

class VariantChooser {
 public:
  // `size`: the plan's size class (size_class.h), which its wisdom is looked up in. `forced`
  // (may be null): boxes of its class run its variant, the others the model's. Throws
  // Error(kInvalid) for an unknown token in options.variant.
  VariantChooser(const RelayoutOptions& options, int threads, int64_t destination_bytes,
                 SizeClass size, const ClassVariant* forced);
  ChosenVariant choose(KernelClass k, int source_bits, const std::string& pitch);

 private:
  PlannerMode mode_;
  ForcedVariant forced_;
  const ClassVariant* forced_value_;
  int threads_;
  bool large_;  // wisdom is measured for outputs the kernels stream (4 MiB and more)
  SizeClass size_;
  std::chrono::steady_clock::time_point deadline_;
};

// Applies `kernel.variant` to the box (the runs' walk) and the kernel (its stores): `rules_stream`
// is what the size rules say for runs (relayout_plan.cpp, choose_streaming).
void apply_variant(StridedBox& box, CopyKernel& kernel, bool rules_stream);

// madvise(MADV_HUGEPAGE) over the whole 2 MiB pages of [data, data + bytes) (Linux; nothing
// elsewhere or for less than 4 MiB). Pages faulted from then on may be huge ones.
void advise_huge_pages(const void* data, int64_t bytes);

}  // namespace tessera::relayout
