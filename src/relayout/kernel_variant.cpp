#include "relayout/kernel_variant.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <span>

#include "relayout/host_profile.h"
#include "relayout/simd_kernels.h"
#include "tessera/error.h"
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

constexpr int kRowChoices[] = {16, 32, 64, 128};
constexpr int kGroupChoices[] = {256, 512, 1024, 2048, 4096};

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// The best SIMD target's token ("avx3", "avx3_zen4"), and AVX2's.
std::string best_simd_token() {
  return lower(stream_target(false));
}

const char* store_token(StoreMode s) {
  switch (s) {
    case StoreMode::kAuto:
      return "auto";
    case StoreMode::kPlain:
      return "plain";
    case StoreMode::kStream:
      return "stream";
    case StoreMode::kStaged:
      return "staged";
  }
  return "auto";
}

const char* prefetch_token(Prefetch p) {
  return p == Prefetch::kNone ? "pf0" : p == Prefetch::kL1 ? "l1" : "l2";
}

std::string known_tokens() {
  return "src, few, r16, r32, r64, r128, ra64, pf0, l1, l2, g256, g512, g1024, g2048, g4096, "
         "auto, plain, stream, staged, avx2, " +
         best_simd_token() + ", 2band, huge, 4k, p1m, p4m";
}

[[noreturn]] void refuse(std::string_view name, std::string_view token, const char* why) {
  throw Error(ErrorKind::kArgument,
              fmt::format("variant '{}': {} '{}' (known tokens, joined by '-': {})",
                          printable_utf8(name), why, printable_utf8(token), known_tokens()));
}

void set_once(bool& seen, std::string_view name, std::string_view token) {
  if (seen) refuse(name, token, "a second value for the same parameter");
  seen = true;
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
  KernelVariant& v = t.values;
  if (name.empty()) return t;
  const std::string best = best_simd_token();
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t end = std::min(name.find('-', start), name.size());
    const std::string_view token = name.substr(start, end - start);
    start = end + 1;
    if (token.empty()) refuse(name, token, "an empty token");
    if (token == "src" || token == "few") {
      set_once(t.walk, name, token);
      v.walk = token == "src" ? Walk::kSource : Walk::kFewerStreams;
    } else if (token == "ra64") {
      set_once(t.realigned_rows, name, token);
      v.realigned_rows = 64;
    } else if (token == "pf0" || token == "l1" || token == "l2") {
      set_once(t.prefetch, name, token);
      v.prefetch = token == "pf0" ? Prefetch::kNone : token == "l1" ? Prefetch::kL1 : Prefetch::kL2;
    } else if (token == "auto" || token == "plain" || token == "stream" || token == "staged") {
      set_once(t.store, name, token);
      v.store = token == "auto"     ? StoreMode::kAuto
                : token == "plain"  ? StoreMode::kPlain
                : token == "stream" ? StoreMode::kStream
                                    : StoreMode::kStaged;
    } else if (token == "avx2" || token == best || token == "best") {
      set_once(t.simd, name, token);
      v.simd = token == "avx2" && simd_has_choice() ? Simd::kAvx2 : Simd::kBest;
    } else if (token == "2band") {
      set_once(t.two_bands, name, token);
      v.two_bands = true;
    } else if (token == "huge" || token == "4k") {
      set_once(t.huge_pages, name, token);
      v.huge_pages = token == "huge";
    } else if (token == "p1m" || token == "p4m") {
      set_once(t.piece_mib, name, token);
      v.piece_mib = token == "p1m" ? 1 : 4;
    } else if (token.size() > 1 && (token[0] == 'r' || token[0] == 'g')) {
      const std::string digits(token.substr(1));
      const bool rows = token[0] == 'r';
      int value = 0;
      for (const int choice :
           rows ? std::span<const int>(kRowChoices) : std::span<const int>(kGroupChoices)) {
        if (digits == std::to_string(choice)) value = choice;
      }
      if (value == 0) refuse(name, token, "an unknown token");
      set_once(rows ? t.band_rows : t.group_lines, name, token);
      (rows ? v.band_rows : v.group_lines) = value;
    } else {
      refuse(name, token, "an unknown token");
    }
    if (end == name.size()) break;
  }
  return t;
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
  if (p.walk) tokens.emplace_back(v.walk == Walk::kSource ? "src" : "few");
  if (p.store) {
    // A plain transpose's own way of streaming is the stage.
    const StoreMode store =
        k == KernelClass::kTranspose && v.store == StoreMode::kAuto ? StoreMode::kStaged : v.store;
    tokens.emplace_back(store_token(store));
  }
  if (p.rows) tokens.push_back(fmt::format("r{}", v.band_rows));
  if (p.prefetch) tokens.emplace_back(prefetch_token(v.prefetch));
  if (p.group && v.prefetch != Prefetch::kNone) tokens.push_back(fmt::format("g{}", v.group_lines));
  if (simd_has_choice()) tokens.push_back(v.simd == Simd::kAvx2 ? "avx2" : best_simd_token());
  if (p.realigned && v.realigned_rows > 0) tokens.emplace_back("ra64");
  if (p.two_bands && v.two_bands) tokens.emplace_back("2band");
  if (v.huge_pages) tokens.emplace_back("huge");
  if (v.piece_mib != 1) tokens.emplace_back("p4m");
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
    for (const int rows : kRowChoices) changed([rows](KernelVariant& v) { v.band_rows = rows; });
  }
  if (p.prefetch) {
    for (const Prefetch f : {Prefetch::kNone, Prefetch::kL1, Prefetch::kL2})
      changed([f](KernelVariant& v) { v.prefetch = f; });
  }
  if (p.group) {
    for (const int lines : kGroupChoices) {
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
