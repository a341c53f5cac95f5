#include "relayout/plan_choices.h"

#include <fmt/format.h>

#include <cstdint>

#include "relayout/tuner.h"
#include "relayout/wisdom.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tessera::relayout {
namespace {}  // namespace

VariantChooser::VariantChooser(const RelayoutOptions& options, int threads,
                               int64_t destination_bytes, SizeClass size,
                               const ClassVariant* forced)
    : mode_(options.planner),
      forced_(options.variant),
      forced_value_(forced),
      threads_(threads),
      large_(destination_bytes >= kWisdomBytes),
      size_(size) {
  const double cap = options.planner_seconds > 0
                         ? options.planner_seconds
                         : planner_mode_info(options.planner).default_seconds;
  deadline_ = std::chrono::steady_clock::now() +
              std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                  std::chrono::duration<double>(cap));
}

ChosenVariant VariantChooser::choose(KernelClass k, int source_bits, const std::string& pitch) {
  ChosenVariant chosen{model_variant(k), "model", pitch};
  if (forced_value_ != nullptr) {
    if (k == forced_value_->kernel_class) {
      chosen.variant = forced_value_->variant;
      chosen.origin = "forced";
    }
    chosen.variant = resolved(chosen.variant);
    return chosen;
  }
  if (k != KernelClass::kNone && large_) {
    const ProblemKey key{k, std::max(1, source_bits / 8), pitch, threads_, size_};
    std::optional<FoundWisdom> found = find_wisdom(key);
    const bool stale =
        found &&
        (!found->exact || (mode_ == PlannerMode::kPatient && found->choice.mode != "patient"));
    if (mode_ != PlannerMode::kEstimate && (!found || stale)) {
      if (std::chrono::steady_clock::now() < deadline_ && measure_problem(key, mode_, deadline_)) {
        found = find_wisdom(key);
      } else if (!found) {
        chosen.origin = "model; not measured: out of time";
      }
    }
    if (found) {
      // Wisdom decides wherever it exists: no rule about the caches overrides it (its size class
      // was measured on a proxy of that class).
      chosen.variant = apply_tokens(chosen.variant, parse_variant(found->choice.variant));
      chosen.origin = fmt::format("measured {} on this host", found->choice.measured);
      if (!found->exact) chosen.origin += fmt::format(" for {}", found->key);
    }
  }
  if (!forced_.empty()) {
    chosen.variant = apply_tokens(chosen.variant, forced_.values().tokens);
    chosen.origin = "forced";
  }
  chosen.variant = resolved(chosen.variant);
  return chosen;
}

void apply_variant(StridedBox& box, CopyKernel& kernel, bool rules_stream) {
  const KernelVariant& v = kernel.variant;
  switch (kernel.kind) {
    case KernelKind::kRuns:
      if (v.walk == Walk::kFewerStreams) order_runs_walk(box, Walk::kFewerStreams);
      // kernel.streaming says whether the runs can stream at all (4 MiB and whole lines).
      kernel.streaming = kernel.streaming && (v.store == StoreMode::kAuto    ? rules_stream
                                              : v.store == StoreMode::kPlain ? false
                                                                             : true);
      return;
    case KernelKind::kTranspose:
    case KernelKind::kPackBits:
      if (v.store == StoreMode::kPlain) kernel.streaming = false;
      return;
    case KernelKind::kStrided:
    case KernelKind::kBits:
      return;
  }
}

void advise_huge_pages(const void* data, int64_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  if (bytes < (int64_t{4} << 20)) return;
  const auto begin = (reinterpret_cast<uintptr_t>(data) + kHuge - 1) / kHuge * kHuge;
  const auto end =
      (reinterpret_cast<uintptr_t>(data) + static_cast<uintptr_t>(bytes)) / kHuge * kHuge;
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

}  // namespace tessera::relayout
