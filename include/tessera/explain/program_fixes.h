// Fixes a person can apply to their program, not permutations of one idea.
//
// Kinds (issue 11):
//   reshape  merge a small minor dim into its neighbour, or give the array 128 lanes:
//            s32[2048,1,128,128,4]{4,3,2,1,0:T(8,128)} (16 GiB) -> s32[2048,1,128,512], 512 MiB,
//            change "x.reshape(2048, 1, 128, 512)", saving 15.5 GiB;
//   reorder  another minor_to_major, reached by transposing where the array is made:
//            change "jnp.transpose(x, (0, 1, 2, 4, 3))" (JAX's axes are major-to-minor, so the
//            permutation is XLA's minor_to_major reversed);
//   storage  a narrower element storage the target can hold (never 1-bit pred on today's TPUs).
// Equivalent alternatives (same kind, same size) are one fix listing the others in
// `alternatives`; fixes that save nothing are dropped. Ranked by size, then reshape before reorder
// (a reshape changes one line of a program; a transpose moves data).
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tessera/explain/target_profile.h"
#include "tessera/xla/shape.h"

namespace tessera::explain {

struct ProgramFix {
  std::string kind;    // "reshape", "reorder", "storage"
  std::string layout;  // the new shape with its layout (target tiles applied)
  int64_t size_bytes = 0;
  int64_t bytes_saved = 0;
  std::string change;                     // in the user's terms
  std::vector<std::string> alternatives;  // other layouts of the same kind and size
};

// `shape` is laid out as given (after apply_target); `size_bytes` is its current size.
std::vector<ProgramFix> program_fixes(const xla::Shape& shape, int64_t size_bytes, Target target,
                                      PredStorage pred, std::size_t limit);

// Why a non-row-major layout exists, in the user's terms, or "" for a row-major one:
// {1,2,0} -> "minor_to_major {1,2,0} is what jnp.transpose(x, (0, 2, 1)) of a row-major array
// gives".
std::string transpose_cause(const xla::Shape& shape);

// {kind, layout, size_bytes, bytes_saved, change, alternatives}
nlohmann::ordered_json program_fix_json(const ProgramFix& fix);

}  // namespace tessera::explain
