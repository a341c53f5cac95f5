// The TPU generation table and the names of targets. Every row cites the XLA output it rests on;
// change a row only with new public evidence (docs/reference/tpu-targets.md).
#include "tessera/explain/tpu_generations.h"

#include <fmt/format.h>

#include <array>
#include <cstdlib>

#include "tessera/error.h"
#include "tessera/explain/tpu_compiler_model.h"
#include "tessera/utf8_text.h"

namespace tessera::explain {
namespace {

constexpr std::string_view kPredFourBytesEvidence =
    "pred in 4 bytes: pred[67108864]{0:T(1024)E(32)}, pred[64,512,2048]{...:T(8,128)E(32)} "
    "(2020 pytorch/xla and TensorFlow TPU OOM reports: 64.00M unpadded, 256.00M, 4.0x expansion)";
constexpr std::string_view kPredOneByteEvidence =
    "pred in 1 byte, packed like s8: pred[128,512]{0,1:T(8,128)(4,1)} (2023 google-research/t5x "
    "HLO dumps)";
constexpr std::string_view kSixteenRowsEvidence =
    "bf16 in 16-row tiles: bf16[...]{...:T(16,128)(2,1)} (2025 vLLM-on-TPU HLO dumps, "
    "tpu-v6e/tpu-v7x era); second minor 1 in 2 rows: bf16[1,6144]{1,0:T(2,128)(2,1)}, "
    "bf16[1,4096]{1,0:T(2,128)(2,1)} (2025 TPU HLO dumps kept as test data on GitHub); pred as "
    "tpu-v4";

// Oldest first. tpu-v5e and tpu-v5p have no public output of their own that differs from tpu-v4;
// tpu-v7x none that differs from tpu-v6e.
constexpr std::array<TpuGeneration, 7> kGenerations = {{
    {Target::kTpuV2, "tpu-v2", PredStorage::kFourBytes, 8, 4, kPredFourBytesEvidence},
    {Target::kTpuV3, "tpu-v3", PredStorage::kFourBytes, 8, 4, kPredFourBytesEvidence},
    {Target::kTpuV4, "tpu-v4", PredStorage::kOneByte, 8, 4, kPredOneByteEvidence},
    {Target::kTpuV5e, "tpu-v5e", PredStorage::kOneByte, 8, 4, "as tpu-v4 (no differing output)"},
    {Target::kTpuV5p, "tpu-v5p", PredStorage::kOneByte, 8, 4, "as tpu-v4 (no differing output)"},
    {Target::kTpuV6e, "tpu-v6e", PredStorage::kOneByte, 16, 2, kSixteenRowsEvidence},
    {Target::kTpuV7x, "tpu-v7x", PredStorage::kOneByte, 16, 2, "as tpu-v6e (no differing output)"},
}};

// Shared by every generation (sources: public OOM reports, whose "Shape:" and "XLA label:" lines
// print the layout; the tiled layout spec's "Examples of tiling formats").
constexpr std::array<TpuRule, 14> kSharedRules = {{
    {"rank >= 2, 32-bit: (8,128)",
     "s32[8388608,8,4]{2,1,0:T(8,128)} 32.00G, unpadded 1.00G (DifferentiableUniverseInitiative/"
     "flowpm#27); f32[1024,245,64]{1,2,0:T(8,128)} 64.00M, unpadded 61.25M "
     "(sokrypton/ColabFold#62)"},
    {"second minor 3-4: 4 rows", "s32[8388608,8,4]{0,2,1:T(4,128)} (flowpm#27, XLA label)"},
    {"second minor 1-2: 2 rows (16-bit: 2 only)",
     "bf16[2,8192]{1,0:T(2,128)(2,1)}, bf16[1,4096]{1,0:T(2,128)(2,1)} (public HLO dumps); "
     "tiled layout spec, TPU small tile format"},
    {"16-bit: (8,128)(2,1)",
     "bf16[512,16,3072]{2,1,0:T(8,128)(2,1)}, unpadded 48.00M (pytorch/xla#1965)"},
    {"16-bit, second minor 1: 4 rows (tpu-v6e/v7x: 2)",
     "bf16[2048,1,2048,128]{0,1,3,2:T(4,128)(2,1)} (pytorch/xla#6674: a 4x expansion)"},
    {"16-bit, second minor 3-4: 4 rows", "bf16[...,3|4,...]{...:T(4,128)(2,1)} (issue 17)"},
    {"8-bit: (R,128)(4,1), R >= 4", "tiled layout spec, Examples of tiling formats"},
    {"sub-byte: (R,128)(p,1)E(n), R >= p", "s4 -> T(8,128)(8,1)E(4) (tiled layout spec)"},
    {"64-bit and complex: as 32-bit", "tessera's assumption: no public TPU output"},
    {"rank 1, up to 256 elements: T(256)", "f32[8..256]{0:T(256)} (OOM report XLA labels)"},
    {"rank 1, 257-512 elements: T(512)", "f32[512]{0:T(512)} (OOM report XLA labels)"},
    {"rank 1, more than 512 elements: T(1024)",
     "f32[1024|1280|8192|524288]{0:T(1024)}, pred[67108864]{0:T(1024)E(32)} (OOM reports)"},
    {"rank 0, 32-bit: T(256)", "f32[]{:T(256)} (sokrypton/ColabFold#62, XLA label)"},
    {"rank 0, 16-bit: T(512)(2,1)", "bf16[]{:T(512)(2,1)} (issue 17)"},
}};

std::string known_targets() {
  std::string out = "tpu";
  for (const TpuGeneration& g : kGenerations) out += fmt::format(", {}", g.name);
  return out + ", none";
}

std::string_view pred_text(PredStorage pred) {
  switch (pred) {
    case PredStorage::kFourBytes:
      return "32 bits, E(32)";
    case PredStorage::kOneByte:
      return "8 bits, (4,1)";
    case PredStorage::kOneBit:
      return "1 bit, (32,1)E(1)";
    case PredStorage::kTargetDefault:
      break;
  }
  return "the target's";
}

}  // namespace

std::span<const TpuGeneration> tpu_generations() {
  return kGenerations;
}

std::span<const TpuRule> tpu_shared_rules() {
  return kSharedRules;
}

const TpuGeneration& tpu_generation(Target target) {
  target = resolve_target(target, XlaEra::k2020);  // this table is the 2020 era's
  for (const TpuGeneration& g : kGenerations) {
    if (g.target == target) return g;
  }
  throw Error(ErrorKind::kInvalid, "target 'none' is not a TPU generation");
}

bool is_tpu(Target target) {
  return target != Target::kNone;
}

Target parse_target(std::string_view name) {
  if (name == "tpu") return Target::kTpu;
  if (name == "none") return Target::kNone;
  for (const TpuGeneration& g : kGenerations) {
    if (g.name == name) return g.target;
  }
  throw Error(ErrorKind::kInvalid, fmt::format("unknown target '{}'; known targets: {}",
                                               printable_utf8(name), known_targets()));
}

std::string_view target_name(Target target) {
  if (target == Target::kNone) return "none";
  if (target == Target::kTpu) return "tpu";
  return tpu_generation(target).name;
}

bool environment_names_target() {
  const char* environment = std::getenv("TESSERA_TARGET");
  return environment != nullptr && *environment != '\0';
}

Target target_or_environment(std::optional<std::string_view> given, Target fallback) {
  if (given) return parse_target(*given);
  if (!environment_names_target()) return fallback;
  const char* environment = std::getenv("TESSERA_TARGET");
  try {
    return parse_target(environment);
  } catch (const Error& e) {
    throw Error(ErrorKind::kInvalid, fmt::format("TESSERA_TARGET: {}", e.what()));
  }
}

PredStorage parse_pred_bits(int bits) {
  if (bits == 32) return PredStorage::kFourBytes;
  if (bits == 8) return PredStorage::kOneByte;
  if (bits == 1) return PredStorage::kOneBit;
  if (bits == 0) return PredStorage::kTargetDefault;
  throw Error(ErrorKind::kInvalid,
              fmt::format("--pred-bits {} is not a TPU pred storage; use 32, 8 or 1", bits));
}

std::string target_table_text() {
  std::string out = fmt::format(
      "XLA era 2026 (the default; --xla-era, TESSERA_XLA_ERA): {}\n"
      "targets    tpu-v2 tpu-v3 tpu-v4 tpu-v5e tpu-v5p tpu-v6e tpu-v7x; tpu is tpu-v5e\n",
      xla_era_description(XlaEra::k2026));
  for (const CompilerRule& r : libtpu_rules()) {
    out += fmt::format("  {:<18} {}\n  {:<18}   shown by: {}\n", r.generations, r.rule, "",
                       r.evidence);
  }
  out += fmt::format("\nXLA era 2020 (--xla-era 2020): {}\n", xla_era_description(XlaEra::k2020));
  out += "target     pred storage       16-bit rows (second minor 1)  evidence\n";
  for (const TpuGeneration& g : kGenerations) {
    out += fmt::format("{:<10} {:<18} {:<29} {}\n", g.name, pred_text(g.pred),
                       fmt::format("{} ({})", g.sixteen_bit_rows, g.sixteen_bit_rows_for_one),
                       g.evidence);
  }
  out += fmt::format(
      "tpu        in this era tpu-v3 ({}): most public OOM reports and XLA labels (2019-2021 TPU "
      "v2/v3) "
      "print pred as E(32) and bf16 as (8,128)(2,1)\n",
      tpu_generation(Target::kTpu).name);
  out += "none       the layout exactly as written\n\nrules of every generation\n";
  for (const TpuRule& r : kSharedRules) out += fmt::format("  {:<48} {}\n", r.rule, r.evidence);
  return out;
}

}  // namespace tessera::explain
