// The choices a kernel makes that do not change its output, only its speed, as data: each kernel
// class has a few parameters with a small candidate set, and a variant is one value for each. The
// planner (planner.h) picks a variant per class from the wisdom measured on this host, or from a
// model; a caller may force one by name. Every variant writes the same bytes (tests run each one).
//
// A variant's name is its values joined by '-', e.g. "staged-r32-l1-g1024-avx3" (transposes) or
// "src-auto" (runs); a name may give only some values ("r64-l2"), the rest then come from the
// planner. The tokens are one table in kernel_variant.cpp (variant_tokens() in planner.h lists
// it, `tessera tune --list` prints it, docs/howto/tuning.md's table is generated from that).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/relayout/forced_variant.h"

namespace tessera::relayout {

// What a box's kernel is, as far as its variants go (kernel_class in plan_classes.h decides).
enum class KernelClass : uint8_t {
  kNone,           // element loops: no variants
  kRuns,           // contiguous runs walked in the source's order either way (untiling)
  kRunsTile,       // runs whose walk has an alternative (row-major -> T(8,128))
  kRunsSpread,     // runs spread over a destination at least twice their size (NPU images)
  kTranspose,      // plain transposes of 4-byte elements (f32 {1,0} -> {0,1})
  kTileTranspose,  // small tiles gathered into 16x16 (T(8,128) -> transposed, -> Fortran order)
  kTileGather,     // a plain matrix read across into tiles (Fortran order -> T(8,128))
  kInterleave,     // (2,1) and (4,1) packing
  kDeinterleave,   // their unpacking
  kPackBits,       // pred's (32,1) bit packing
};

// The classes that have variants, in the order `tessera tune` measures them.
const std::vector<KernelClass>& tuned_classes();
// "runs", "runs-tile", ..., "pack-bits"; "none" for kNone.
const char* kernel_class_name(KernelClass k);
// The inverse; kNone for an unknown name.
KernelClass kernel_class_named(std::string_view name);

enum class Walk : uint8_t { kSource, kFewerStreams };
enum class Prefetch : uint8_t { kNone, kL1, kL2 };
enum class StoreMode : uint8_t { kAuto, kPlain, kStream, kStaged };
enum class Simd : uint8_t { kBest, kAvx2 };

struct KernelVariant {
  Walk walk = Walk::kSource;
  int band_rows = 0;       // 0: the SIMD target's own (32 with 512-bit vectors, 128 otherwise)
  int realigned_rows = 0;  // 0: band_rows
  Prefetch prefetch = Prefetch::kL1;
  int group_lines = 0;  // 0: the SIMD target's own (1024 with 512-bit vectors, 512 otherwise)
  StoreMode store = StoreMode::kAuto;
  Simd simd = Simd::kBest;
  bool two_bands = false;
  bool huge_pages = false;
  int piece_mib = 1;
  // Not a token: false moves the same lines without transposing them (the access pattern's own
  // speed limit, BM_TransposeCeiling; the output is then not the conversion).
  bool shuffle = true;

  bool operator==(const KernelVariant&) const = default;
};

// A variant given by name: the values its tokens set, and which ones they are.
struct VariantTokens {
  KernelVariant values;
  bool walk = false, band_rows = false, realigned_rows = false, prefetch = false,
       group_lines = false, store = false, simd = false, two_bands = false, huge_pages = false,
       piece_mib = false;
};

// Parses "r64-l2" and the like. Throws Error(kInvalid) naming an unknown or repeated token and
// listing the known ones.
VariantTokens parse_variant(std::string_view name);

}  // namespace tessera::relayout

// The values a forced name sets (forced_variant.h), parsed once.
struct tessera::relayout::ForcedVariant::Values {
  VariantTokens tokens;
};

namespace tessera::relayout {

// `base` with the values `forced` sets.
KernelVariant apply_tokens(KernelVariant base, const VariantTokens& forced);

// The variant with its target-dependent defaults (band rows, group lines) made concrete for this
// CPU, so that names say what runs.
KernelVariant resolved(KernelVariant v);

// The canonical name of `v` for `k`: the tokens of the parameters that class has, the switches
// (2band, huge, ra64, p4m) only when on. "none" for kNone.
std::string variant_name(KernelClass k, const KernelVariant& v);

// The model's variant (the planner's `estimate` without wisdom): the kernels' own defaults with
// the priors of host_profile.h.
KernelVariant model_variant(KernelClass k);

// The candidates the planner measures for `k` on this CPU, resolved and without duplicates, the
// model's first: one change of one parameter at a time, and the combinations earlier hosts' rules
// made (docs/notes/2026-11-27-host-rules.md).
std::vector<KernelVariant> candidate_variants(KernelClass k);

// Whether this CPU has a SIMD target wider than AVX2 that the simd token can choose against.
bool simd_has_choice();

}  // namespace tessera::relayout
