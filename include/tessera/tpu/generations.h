// The TPU generations as one table, one record each: its names, how the oracle reaches it, and
// what each era's compiler does on it. Everything that lists generations (the --target help, the
// targets line of --list-targets, the Python docstrings, the oracle's topologies, the docs table)
// is made from this table; adding a generation is adding its record (CONTRIBUTING.md).
//
// Example: tpu_generation(Generation::kV6e).sixteen_bit_rows_2020 == 16 (bf16 ->
//   T(16,128)(2,1) in era 2020); tpu_generation(Generation::kV5e).topology == "v5e:2x2".
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "tessera/tpu/target.h"

namespace tessera::tpu {

// The era-2026 tile rows a generation follows (compiler_model.h, rule 2): tpu-v2/v3's, or the
// whole tiles of tpu-v4 and later.
enum class CompilerRows { kTpuV2, kTpuV4 };

struct TpuGeneration {
  Generation generation = Generation::kV5e;
  std::string_view name;         // "tpu-v4", the --target name
  std::string_view device_kind;  // "TPU v4", as JAX's device_kind says it
  std::string_view topology;     // "v4:2x2x1", the deviceless topology the oracle compiles for
  std::string_view hbm;          // "15.25G": the available HBM libtpu reports for one device
  // The output tuple's index table takes 4 bytes per element rounded up to this many
  // (docs/design/program-memory.md, from the compiler's buffer assignments).
  int64_t output_table_granule = 512;
  // Era 2026 (compiler_model.h): rank 0 and the smallest rank-1 tile in 32-bit words, the fewest
  // bits a value takes, and the tile rows.
  int64_t linear_words = 128;
  int min_stored_bits = 2;
  CompilerRows rows = CompilerRows::kTpuV4;
  // Era 2020 (profile_2020.h): default pred storage, 16-bit tile rows when no small tile
  // applies and for a second minor dimension of 1, and the XLA output the row rests on.
  PredStorage pred_2020 = PredStorage::kOneByte;
  int64_t sixteen_bit_rows_2020 = 8;
  int64_t sixteen_bit_rows_for_one_2020 = 4;
  std::string_view evidence_2020;
};

// `generation.hbm` in bytes: libtpu's "G" is GiB ("15.75G" -> 16911433728).
int64_t hbm_bytes(const TpuGeneration& generation);

// Every generation, oldest first.
std::span<const TpuGeneration> tpu_generations();

// The record of `generation`.
const TpuGeneration& tpu_generation(Generation generation);

// The record of a target's generation; throws Error(kInvalid) for a target without one.
const TpuGeneration& tpu_generation(const TpuTarget& target);

// How `target` stores pred: its own storage when named, else its generation's in its era
// (2020: pred_2020; 2026: a byte on every generation, compiler_model.h rule 1).
PredStorage stored_pred(const TpuTarget& target);

// The generation "tpu" stands for in `era`: tpu-v5e for 2026, tpu-v3 for 2020 (whose public
// reports came mostly from v2/v3 pods).
Generation usual_generation(XlaEra era);

// `tessera explain --list-targets`: both eras, every generation and every rule with its evidence.
std::string target_table_text();

}  // namespace tessera::tpu
