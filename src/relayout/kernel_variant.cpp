#include "relayout/kernel_variant.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>

#include "relayout/host_profile.h"
#include "relayout/simd_kernels.h"
#include "tessera/error.h"
#include "tessera/relayout/planner.h"
#include "tessera/utf8_text.h"

namespace tessera::relayout {
namespace {

struct ClassName {
  KernelClass k;
  const char* name;
};

constexpr std::array<ClassName, 10> kClassNames{{
    {KernelClass::kNone, "none"},
    {KernelClass::kRuns, "runs"},
    {KernelClass::kRunsTile, "runs-tile"},
    {KernelClass::kRunsSpread, "runs-spread"},
    {KernelClass::kTranspose, "transpose"},
    {KernelClass::kTileTranspose, "tile-transpose"},
    {KernelClass::kTileGather, "tile-gather"},
    {KernelClass::kInterleave, "interleave"},
    {KernelClass::kDeinterleave, "deinterleave"},
    {KernelClass::kPackBits, "pack-bits"},
}};

bool is_runs(KernelClass k) {
  return k == KernelClass::kRuns || k == KernelClass::kRunsTile || k == KernelClass::kRunsSpread;
}

bool is_tile_transpose(KernelClass k) {
  return k == KernelClass::kTileTranspose || k == KernelClass::kTileGather;
}

bool is_transpose(KernelClass k) {
  return k == KernelClass::kTranspose || is_tile_transpose(k);
}

// Which parameters a class has, in the order its names give them.
struct Parameters {
  bool walk = false, store = false, rows = false, realigned = false, prefetch = false,
       group = false, two_bands = false;
};

Parameters parameters_of(KernelClass k) {
  Parameters p;
  p.walk = k == KernelClass::kRunsTile;
  p.store = !is_tile_transpose(k);
  p.rows = is_transpose(k);
  p.realigned = k == KernelClass::kTileTranspose;
  p.prefetch = is_transpose(k);
  p.group = k == KernelClass::kTranspose || k == KernelClass::kTileGather;
  p.two_bands = k == KernelClass::kTranspose;
  return p;
}

// The variant tokens, one table from which the parser, the names, `tessera tune --list` and the
// docs (docs/howto/tuning.md, generated from `tune --list`) all come.
enum class Parameter : uint8_t {
  kWalk,
  kRows,
  kRealigned,
  kPrefetch,
  kGroup,
  kStore,
  kSimd,
  kTwoBands,
  kPages,
  kPieces
};

struct Token {
  Parameter parameter;
  const char* text;
  int value;
};

constexpr Token kTokens[] = {
    {Parameter::kWalk, "src", static_cast<int>(Walk::kSource)},
    {Parameter::kWalk, "few", static_cast<int>(Walk::kFewerStreams)},
    {Parameter::kRows, "r16", 16},
    {Parameter::kRows, "r32", 32},
    {Parameter::kRows, "r64", 64},
    {Parameter::kRows, "r128", 128},
    {Parameter::kRealigned, "ra64", 64},
    {Parameter::kPrefetch, "pf0", static_cast<int>(Prefetch::kNone)},
    {Parameter::kPrefetch, "l1", static_cast<int>(Prefetch::kL1)},
    {Parameter::kPrefetch, "l2", static_cast<int>(Prefetch::kL2)},
    {Parameter::kGroup, "g256", 256},
    {Parameter::kGroup, "g512", 512},
    {Parameter::kGroup, "g1024", 1024},
    {Parameter::kGroup, "g2048", 2048},
    {Parameter::kGroup, "g4096", 4096},
    {Parameter::kStore, "auto", static_cast<int>(StoreMode::kAuto)},
    {Parameter::kStore, "plain", static_cast<int>(StoreMode::kPlain)},
    {Parameter::kStore, "stream", static_cast<int>(StoreMode::kStream)},
    {Parameter::kStore, "staged", static_cast<int>(StoreMode::kStaged)},
    {Parameter::kSimd, "avx2", static_cast<int>(Simd::kAvx2)},
    {Parameter::kSimd, "best", static_cast<int>(Simd::kBest)},  // and the best target's name
    {Parameter::kTwoBands, "2band", 1},
    {Parameter::kPages, "huge", 1},
    {Parameter::kPages, "4k", 0},
    {Parameter::kPieces, "p1m", 1},
    {Parameter::kPieces, "p4m", 4},
};

struct ParameterInfo {
  Parameter parameter;
  const char* name;
  const char* meaning;
};

constexpr ParameterInfo kParameters[] = {
    {Parameter::kWalk, "walk",
     "runs: follow the source's order, or the side that leaves the other fewer streams open"},
    {Parameter::kRows, "rows", "transposes: source rows read at a time"},
    {Parameter::kRealigned, "realign",
     "tile transposes into Fortran order: blocks of at least 64 rows"},
    {Parameter::kPrefetch, "prefetch", "transposes: no prefetches, or into the L1 or the L2"},
    {Parameter::kGroup, "group", "transposes: source lines prefetched per group, a group ahead"},
    {Parameter::kStore, "store",
     "the size rules, ordinary stores, non-temporal stores, or through an L1 stage (transposes)"},
    {Parameter::kSimd, "simd",
     "AVX2 code, or the best SIMD target's (also named by its Highway name, e.g. avx3)"},
    {Parameter::kTwoBands, "two bands", "transposes: two bands of rows, half the matrix apart"},
    {Parameter::kPages, "pages", "advise 2 MiB pages for both buffers, or leave 4 KiB pages"},
    {Parameter::kPieces, "pieces", "thread split: pieces of 1 MiB or of 4 MiB"},
};

const char* token_text(Parameter p, int value) {
  for (const Token& t : kTokens) {
    if (t.parameter == p && t.value == value) return t.text;
  }
  return "?";
}

// The values a parameter's tokens give, in the table's order (rows, groups).
std::vector<int> token_values(Parameter p) {
  std::vector<int> out;
  for (const Token& t : kTokens) {
    if (t.parameter == p) out.push_back(t.value);
  }
  return out;
}

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// The best SIMD target's token ("avx3", "avx3_zen4").
std::string best_simd_token() {
  return lower(stream_target(false));
}

std::string known_tokens() {
  std::vector<std::string> texts;
  for (const Token& t : kTokens) texts.emplace_back(t.text);
  texts.push_back(best_simd_token());
  return fmt::format("{}", fmt::join(texts, ", "));
}

[[noreturn]] void refuse(std::string_view name, std::string_view token, const char* why) {
  throw Error(ErrorKind::kInvalid,
              fmt::format("variant '{}': {} '{}' (known tokens, joined by '-': {})",
                          printable_utf8(name), why, printable_utf8(token), known_tokens()));
}

// Sets one parameter of `t` from a token of the table.
void set_token(VariantTokens& t, const Token& token, std::string_view name) {
  KernelVariant& v = t.values;
  bool* seen = nullptr;
  switch (token.parameter) {
    case Parameter::kWalk:
      seen = &t.walk;
      v.walk = static_cast<Walk>(token.value);
      break;
    case Parameter::kRows:
      seen = &t.band_rows;
      v.band_rows = token.value;
      break;
    case Parameter::kRealigned:
      seen = &t.realigned_rows;
      v.realigned_rows = token.value;
      break;
    case Parameter::kPrefetch:
      seen = &t.prefetch;
      v.prefetch = static_cast<Prefetch>(token.value);
      break;
    case Parameter::kGroup:
      seen = &t.group_lines;
      v.group_lines = token.value;
      break;
    case Parameter::kStore:
      seen = &t.store;
      v.store = static_cast<StoreMode>(token.value);
      break;
    case Parameter::kSimd:
      seen = &t.simd;
      v.simd = static_cast<Simd>(token.value) == Simd::kAvx2 && simd_has_choice() ? Simd::kAvx2
                                                                                  : Simd::kBest;
      break;
    case Parameter::kTwoBands:
      seen = &t.two_bands;
      v.two_bands = token.value != 0;
      break;
    case Parameter::kPages:
      seen = &t.huge_pages;
      v.huge_pages = token.value != 0;
      break;
    case Parameter::kPieces:
      seen = &t.piece_mib;
      v.piece_mib = token.value;
      break;
  }
  if (*seen) refuse(name, token.text, "a second value for the same parameter");
  *seen = true;
}

}  // namespace

const std::vector<KernelClass>& tuned_classes() {
  static const std::vector<KernelClass> classes = {
      KernelClass::kRuns,       KernelClass::kRunsTile,      KernelClass::kRunsSpread,
      KernelClass::kTranspose,  KernelClass::kTileTranspose, KernelClass::kTileGather,
      KernelClass::kInterleave, KernelClass::kDeinterleave,  KernelClass::kPackBits};
  return classes;
}

const char* kernel_class_name(KernelClass k) {
  for (const ClassName& c : kClassNames) {
    if (c.k == k) return c.name;
  }
  return "none";
}

KernelClass kernel_class_named(std::string_view name) {
  for (const ClassName& c : kClassNames) {
    if (name == c.name) return c.k;
  }
  return KernelClass::kNone;
}

bool simd_has_choice() {
  return std::strcmp(stream_target(false), stream_target(true)) != 0;
}

VariantTokens parse_variant(std::string_view name) {
  VariantTokens t;
  if (name.empty()) return t;
  const std::string best = best_simd_token();
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t end = std::min(name.find('-', start), name.size());
    const std::string_view text = name.substr(start, end - start);
    start = end + 1;
    if (text.empty()) refuse(name, text, "an empty token");
    const Token* found = nullptr;
    for (const Token& token : kTokens) {
      if (text == token.text) found = &token;
    }
    static constexpr Token kBest{Parameter::kSimd, "best", static_cast<int>(Simd::kBest)};
    if (found == nullptr && text == best) found = &kBest;
    if (found == nullptr) refuse(name, text, "an unknown token");
    set_token(t, *found, name);
    if (end == name.size()) break;
  }
  return t;
}

ForcedVariant ForcedVariant::parse(std::string_view name) {
  ForcedVariant forced;
  forced.name_ = std::string(name);
  if (!name.empty()) forced.values_ = std::make_shared<const Values>(Values{parse_variant(name)});
  return forced;
}

KernelVariant apply_tokens(KernelVariant base, const VariantTokens& forced) {
  const KernelVariant& f = forced.values;
  if (forced.walk) base.walk = f.walk;
  if (forced.band_rows) base.band_rows = f.band_rows;
  if (forced.realigned_rows) base.realigned_rows = f.realigned_rows;
  if (forced.prefetch) base.prefetch = f.prefetch;
  if (forced.group_lines) base.group_lines = f.group_lines;
  if (forced.store) base.store = f.store;
  if (forced.simd) base.simd = f.simd;
  if (forced.two_bands) base.two_bands = f.two_bands;
  if (forced.huge_pages) base.huge_pages = f.huge_pages;
  if (forced.piece_mib) base.piece_mib = f.piece_mib;
  return base;
}

KernelVariant resolved(KernelVariant v) {
  const bool avx2 = v.simd == Simd::kAvx2;
  if (v.band_rows == 0) v.band_rows = static_cast<int>(transpose_band_rows(avx2));
  if (v.group_lines == 0) v.group_lines = static_cast<int>(transpose_prefetch_group_lines(avx2));
  return v;
}

std::string variant_name(KernelClass k, const KernelVariant& given) {
  if (k == KernelClass::kNone) return "none";
  const KernelVariant v = resolved(given);
  const Parameters p = parameters_of(k);
  std::vector<std::string> tokens;
  const auto add = [&](Parameter parameter, int value) {
    tokens.emplace_back(token_text(parameter, value));
  };
  if (p.walk) add(Parameter::kWalk, static_cast<int>(v.walk));
  if (p.store) {
    // A plain transpose's own way of streaming is the stage.
    const StoreMode store =
        k == KernelClass::kTranspose && v.store == StoreMode::kAuto ? StoreMode::kStaged : v.store;
    add(Parameter::kStore, static_cast<int>(store));
  }
  if (p.rows) add(Parameter::kRows, v.band_rows);
  if (p.prefetch) add(Parameter::kPrefetch, static_cast<int>(v.prefetch));
  if (p.group && v.prefetch != Prefetch::kNone) add(Parameter::kGroup, v.group_lines);
  if (simd_has_choice()) {
    if (v.simd == Simd::kAvx2) {
      add(Parameter::kSimd, static_cast<int>(Simd::kAvx2));
    } else {
      tokens.push_back(best_simd_token());
    }
  }
  if (p.realigned && v.realigned_rows > 0) add(Parameter::kRealigned, v.realigned_rows);
  if (p.two_bands && v.two_bands) add(Parameter::kTwoBands, 1);
  if (v.huge_pages) add(Parameter::kPages, 1);
  if (v.piece_mib != 1) add(Parameter::kPieces, v.piece_mib);
  return fmt::format("{}", fmt::join(tokens, "-"));
}

KernelVariant model_variant(KernelClass k) {
  const HostPriors prior = host_priors();
  KernelVariant v;
  const bool memory_kernel = is_runs(k) || k == KernelClass::kTranspose ||
                             k == KernelClass::kInterleave || k == KernelClass::kDeinterleave;
  if (memory_kernel && prior.avx2_memory_kernels && simd_has_choice()) v.simd = Simd::kAvx2;
  if (k == KernelClass::kRunsTile && prior.walk_fewer_streams) v.walk = Walk::kFewerStreams;
  if (is_transpose(k)) {
    if (prior.prefetch_to_l2) v.prefetch = Prefetch::kL2;
    if (prior.transpose_rows_32) v.band_rows = 32;
  }
  if (k == KernelClass::kTranspose) v.store = StoreMode::kStaged;
  if (k == KernelClass::kTileTranspose && prior.realigned_rows_64) v.realigned_rows = 64;
  return resolved(v);
}

std::vector<VariantTokenGroup> variant_tokens() {
  std::vector<VariantTokenGroup> out;
  for (const ParameterInfo& info : kParameters) {
    VariantTokenGroup group{info.name, {}, info.meaning};
    for (const Token& t : kTokens) {
      if (t.parameter == info.parameter) group.tokens.emplace_back(t.text);
    }
    out.push_back(std::move(group));
  }
  return out;
}

std::vector<KernelVariant> candidate_variants(KernelClass k) {
  if (k == KernelClass::kNone) return {};
  const KernelVariant model = model_variant(k);
  const Parameters p = parameters_of(k);
  std::vector<KernelVariant> out{model};
  const auto add = [&](KernelVariant v) {
    v = resolved(v);
    const std::string name = variant_name(k, v);
    for (const KernelVariant& c : out) {
      if (variant_name(k, c) == name) return;
    }
    out.push_back(v);
  };
  const auto changed = [&](auto&& change) {
    KernelVariant v = model;
    change(v);
    add(v);
  };
  if (p.walk) {
    changed([](KernelVariant& v) {
      v.walk = v.walk == Walk::kSource ? Walk::kFewerStreams : Walk::kSource;
    });
  }
  if (p.store) {
    for (const StoreMode s : {StoreMode::kPlain, StoreMode::kStream}) {
      if (k == KernelClass::kTranspose && s == StoreMode::kPlain) continue;  // 0.2-0.4 of a copy
      if (!is_runs(k) && s == StoreMode::kStream && k != KernelClass::kTranspose) continue;
      changed([s](KernelVariant& v) { v.store = s; });
    }
  }
  if (p.rows) {
    for (const int rows : token_values(Parameter::kRows))
      changed([rows](KernelVariant& v) { v.band_rows = rows; });
  }
  if (p.prefetch) {
    for (const Prefetch f : {Prefetch::kNone, Prefetch::kL1, Prefetch::kL2})
      changed([f](KernelVariant& v) { v.prefetch = f; });
  }
  if (p.group) {
    for (const int lines : token_values(Parameter::kGroup)) {
      if (lines < 512) continue;  // 0.75-0.78 of a copy at 256 (portable_transpose.cpp)
      changed([lines](KernelVariant& v) { v.group_lines = lines; });
    }
  }
  if (p.realigned) {
    changed([](KernelVariant& v) { v.realigned_rows = v.realigned_rows > 0 ? 0 : 64; });
  }
  if (p.two_bands) changed([](KernelVariant& v) { v.two_bands = true; });
  if (simd_has_choice()) {
    changed([](KernelVariant& v) {
      v.simd = v.simd == Simd::kBest ? Simd::kAvx2 : Simd::kBest;
      v.band_rows = v.group_lines = 0;  // the other target's own
    });
  }
  // 2 MiB pages for both sides: for the transposes, whose reads jump a row apart.
  if (is_transpose(k)) changed([](KernelVariant& v) { v.huge_pages = true; });
  changed([](KernelVariant& v) { v.piece_mib = 4; });
  if (k == KernelClass::kTranspose) {
    // Direct streaming from registers with 64-byte runs; and the rules of the AMD family 19h
    // hosts as a whole (host_profile.h's priors), wherever this host is.
    changed([](KernelVariant& v) {
      v.store = StoreMode::kStream;
      v.band_rows = 16;
    });
    changed([](KernelVariant& v) {
      v.prefetch = Prefetch::kL2;
      v.band_rows = 32;
    });
    if (simd_has_choice()) {
      changed([](KernelVariant& v) {
        v.prefetch = Prefetch::kL2;
        v.simd = Simd::kAvx2;
        v.band_rows = v.group_lines = 0;
      });
    }
  }
  return out;
}

}  // namespace tessera::relayout
