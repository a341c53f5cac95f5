// A kernel variant forced by name (planner.h, "Forcing a variant" in docs/howto/tuning.md),
// parsed once where the name enters tessera (the CLI's --variant, Python's variant=, the
// benchmark's TESSERA_VARIANT) and carried as values from there to the kernels.
//
//   RelayoutOptions options;
//   options.variant = ForcedVariant::parse("r64-l2");  // transposes: 64 rows, prefetch into L2
//   plan(from, to, options);                          // writes the same bytes, only faster or not
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace tessera::relayout {

class ForcedVariant {
 public:
  // Nothing forced: the planner chooses.
  ForcedVariant() = default;
  // The tokens of `name` joined by '-' (variant_tokens() in planner.h lists them); a name may
  // give only some parameters. "" forces nothing. Throws Error(kInvalid) naming an unknown or
  // repeated token and listing the known ones.
  static ForcedVariant parse(std::string_view name);

  bool empty() const { return values_ == nullptr; }
  // The name as given.
  const std::string& name() const { return name_; }

  struct Values;  // the parameters the name sets (src/relayout/kernel_variant.h)
  // Only when !empty().
  const Values& values() const { return *values_; }

 private:
  std::string name_;
  std::shared_ptr<const Values> values_;
};

}  // namespace tessera::relayout
