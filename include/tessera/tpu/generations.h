// The TPU generations as one table: where their tile choices differ, and the public XLA output
// that shows each difference. Generations without their own evidence inherit the nearest older
// row (rows differ only where XLA was seen printing something different).
//
// Example: tpu_generation(Target::kTpuV6e).sixteen_bit_rows == 16 (bf16 -> T(16,128)(2,1));
//   tpu_generation(Target::kTpu).name == "tpu-v3".
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "tessera/explain/target_profile.h"

namespace tessera::explain {

struct TpuGeneration {
  Target target = Target::kNone;
  std::string_view name;                 // "tpu-v4"
  PredStorage pred;                      // default pred storage: kFourBytes or kOneByte
  int64_t sixteen_bit_rows = 8;          // 16-bit tile rows when no small tile applies
  int64_t sixteen_bit_rows_for_one = 4;  // 16-bit tile rows for a second minor dimension of 1
  std::string_view evidence;             // the XLA output this row rests on, with its source
};

// Every generation, oldest first.
std::span<const TpuGeneration> tpu_generations();

// The row of `target`; throws Error(kInvalid) for Target::kNone.
const TpuGeneration& tpu_generation(Target target);

// The rules every generation shares, each with its evidence: one line per rule, for
// `tessera explain --list-targets` and docs/reference/tpu-targets.md.
struct TpuRule {
  std::string_view rule;      // "rank 1, 257..512 elements -> T(512)"
  std::string_view evidence;  // "f32[512]{0:T(512)} (pytorch/xla OOM reports)"
};
std::span<const TpuRule> tpu_shared_rules();

// The table as text: one line per generation (name, pred storage, 16-bit rows, evidence), the
// alias, and the shared rules.
std::string target_table_text();

}  // namespace tessera::explain
