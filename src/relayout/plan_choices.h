// The planner's part of building a plan (planner.h): each box's kernel variant, from a forced
// name, wisdom, a measurement or the model, and what the variant changes in the box and kernel.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "relayout/copy_kernels.h"
#include "relayout/kernel_variant.h"
#include "tessera/relayout/relayout_plan.h"

namespace tessera::relayout {

struct ChosenVariant {
  KernelVariant variant;  // resolved
  std::string origin;     // "model", "measured 2026-11-27 on this host", "forced"
  std::string pitch;      // the box's row pitch class (plan_classes.h), as looked up
};

class VariantChooser {
 public:
  // `fits_cache`: what the plan's kernels write fits the last-level cache (relayout_plan.cpp,
  // choose_streaming). Throws Error(kArgument) for an unknown token in options.variant.
  VariantChooser(const RelayoutOptions& options, int threads, int64_t destination_bytes,
                 bool fits_cache);
  ChosenVariant choose(KernelClass k, int source_bits, const std::string& pitch);

 private:
  PlannerMode mode_;
  VariantTokens forced_;
  bool any_forced_ = false;
  int threads_;
  bool large_;  // wisdom is measured for outputs the kernels stream (4 MiB and more)
  // What the kernels write stays in the last-level cache (three quarters of it, the size rule
  // of relayout_plan.cpp): runs keep the size rule's stores there, since wisdom measured them on
  // proxies larger than the cache (an NPU image of 12.8 MB written: streamed 0.86 of plain
  // stores; docs/notes/2026-11-27-planner-acceptance.md).
  bool fits_cache_;
  std::chrono::steady_clock::time_point deadline_;
};

// Applies `kernel.variant` to the box (the runs' walk) and the kernel (its stores): `rules_stream`
// is what the size rules say for runs (relayout_plan.cpp, choose_streaming).
void apply_variant(StridedBox& box, CopyKernel& kernel, bool rules_stream);

// madvise(MADV_HUGEPAGE) over the whole 2 MiB pages of [data, data + bytes) (Linux; nothing
// elsewhere or for less than 4 MiB). Pages faulted from then on may be huge ones.
void advise_huge_pages(const void* data, int64_t bytes);

}  // namespace tessera::relayout
