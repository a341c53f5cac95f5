// The TPU generation table (generations.h). Every row cites the XLA output it rests on;
// change a row only with new evidence (docs/reference/tpu-targets.md).
#include "tessera/tpu/generations.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <vector>

#include "tessera/error.h"
#include "tessera/tpu/compiler_model.h"

namespace tessera::tpu {
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

// Oldest first. Names and topologies: the oracle's (tools/tpu_oracle; every fixture in
// tests/fixtures/tpu_oracle records them); hbm: libtpu's "available HBM" in
// tests/fixtures/tpu_oracle/oom_messages.json; the output table's granule: the buffer assignments
// of tests/fixtures/tpu_memory (tools/tpu_oracle/memory_programs.py). Era 2026: sweeps rank0 and
// rank1_lengths (f32[] -> T(256) on tpu-v2/v3, T(128) later; s4[7] takes a byte on tpu-v2/v3, its
// bits later) and the rows of compiler_model.cpp. Era 2020: tpu-v5e and tpu-v5p have no public
// output of their own that differs from tpu-v4; tpu-v7x none that differs from tpu-v6e.
constexpr auto kGenerations = std::to_array<TpuGeneration>({
    {Generation::kV2, "tpu-v2", "TPU v2", "v2:2x2", "7.48G", 1024, 256, 8, CompilerRows::kTpuV2,
     PredStorage::kFourBytes, 8, 4, kPredFourBytesEvidence},
    {Generation::kV3, "tpu-v3", "TPU v3", "v3:2x2", "15.48G", 1024, 256, 8, CompilerRows::kTpuV2,
     PredStorage::kFourBytes, 8, 4, kPredFourBytesEvidence},
    {Generation::kV4, "tpu-v4", "TPU v4", "v4:2x2x1", "15.25G", 512, 128, 2, CompilerRows::kTpuV4,
     PredStorage::kOneByte, 8, 4, kPredOneByteEvidence},
    {Generation::kV5e, "tpu-v5e", "TPU v5 lite", "v5e:2x2", "15.75G", 512, 128, 2,
     CompilerRows::kTpuV4, PredStorage::kOneByte, 8, 4, "as tpu-v4 (no differing output)"},
    {Generation::kV5p, "tpu-v5p", "TPU v5", "v5p:2x2x1", "95.74G", 32, 128, 2, CompilerRows::kTpuV4,
     PredStorage::kOneByte, 8, 4, "as tpu-v4 (no differing output)"},
    {Generation::kV6e, "tpu-v6e", "TPU v6 lite", "v6e:2x2", "31.25G", 32, 128, 2,
     CompilerRows::kTpuV4, PredStorage::kOneByte, 16, 2, kSixteenRowsEvidence},
    {Generation::kV7x, "tpu-v7x", "TPU7x", "tpu7x:2x2x1", "94.75G", 32, 128, 2,
     CompilerRows::kTpuV4, PredStorage::kOneByte, 16, 2, "as tpu-v6e (no differing output)"},
#ifdef TESSERA_TEST_TPU_GENERATION
    // The test build's made-up generation (CMake option TESSERA_TEST_TPU_GENERATION): one
    // record, as CONTRIBUTING.md's checklist adds one, answered by every command
    // (tests/cli/test_extension_checklist.py). Facts as tpu-v7x's.
    {static_cast<Generation>(static_cast<int>(Generation::kV7x) + 1), "tpu-vtest", "TPU test",
     "test:2x2", "94.75G", 32, 128, 2, CompilerRows::kTpuV4, PredStorage::kOneByte, 16, 2,
     "a made-up generation of the test build"},
#endif
});

// A rule every generation shares in era 2020, with its evidence.
struct TpuRule {
  std::string_view rule;      // "rank 1, 257..512 elements -> T(512)"
  std::string_view evidence;  // "f32[512]{0:T(512)} (pytorch/xla OOM reports)"
};

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
    {"16-bit, second minor 3-4: 4 rows",
     "bf16[...,3|4,...]{...:T(4,128)(2,1)} (public TPU OOM reports)"},
    {"8-bit: (R,128)(4,1), R >= 4", "tiled layout spec, Examples of tiling formats"},
    {"sub-byte: (R,128)(p,1)E(n), R >= p", "s4 -> T(8,128)(8,1)E(4) (tiled layout spec)"},
    {"64-bit and complex: as 32-bit", "tessera's assumption: no public TPU output"},
    {"rank 1, up to 256 elements: T(256)", "f32[8..256]{0:T(256)} (OOM report XLA labels)"},
    {"rank 1, 257-512 elements: T(512)", "f32[512]{0:T(512)} (OOM report XLA labels)"},
    {"rank 1, more than 512 elements: T(1024)",
     "f32[1024|1280|8192|524288]{0:T(1024)}, pred[67108864]{0:T(1024)E(32)} (OOM reports)"},
    {"rank 0, 32-bit: T(256)", "f32[]{:T(256)} (sokrypton/ColabFold#62, XLA label)"},
    {"rank 0, 16-bit: T(512)(2,1)", "bf16[]{:T(512)(2,1)} (public TPU OOM reports, XLA labels)"},
}};

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

int64_t hbm_bytes(const TpuGeneration& generation) {
  // "15.75G": hundredths of a GiB, read without floating point.
  std::string_view text = generation.hbm;
  int64_t hundredths = 0;
  int decimals = -1;
  for (const char c : text.substr(0, text.size() - 1)) {
    if (c == '.') {
      decimals = 0;
      continue;
    }
    hundredths = hundredths * 10 + (c - '0');
    if (decimals >= 0) ++decimals;
  }
  for (int d = decimals < 0 ? 0 : decimals; d < 2; ++d) hundredths *= 10;
  return (hundredths * (int64_t{1} << 30) + 50) / 100;
}

std::span<const TpuGeneration> tpu_generations() {
  return kGenerations;
}

const TpuGeneration& tpu_generation(Generation generation) {
  for (const TpuGeneration& g : kGenerations) {
    if (g.generation == generation) return g;
  }
  throw Error(ErrorKind::kInvalid, "a TPU generation without a record");
}

const TpuGeneration& tpu_generation(const TpuTarget& target) {
  if (!target.is_tpu()) throw Error(ErrorKind::kInvalid, "target 'none' is not a TPU generation");
  return tpu_generation(*target.generation);
}

PredStorage stored_pred(const TpuTarget& target) {
  if (target.pred != PredStorage::kTargetDefault) return target.pred;
  if (target.era == XlaEra::k2026) return PredStorage::kOneByte;
  return tpu_generation(target).pred_2020;
}

std::string target_table_text() {
  std::vector<std::string_view> names;
  for (const TpuGeneration& g : kGenerations) names.push_back(g.name);
  std::string out = fmt::format(
      "XLA era 2026 (the default; --xla-era, TESSERA_XLA_ERA): {}\n"
      "targets    {}; tpu is {}\n",
      xla_era_description(XlaEra::k2026), fmt::join(names, " "),
      generation_name(usual_generation(XlaEra::k2026)));
  for (const CompilerRule& r : libtpu_rules()) {
    out += fmt::format("  {:<18} {}\n  {:<18}   shown by: {}\n", r.generations, r.rule, "",
                       r.evidence);
  }
  out += fmt::format("\nXLA era 2020 (--xla-era 2020): {}\n", xla_era_description(XlaEra::k2020));
  out += "target     pred storage       16-bit rows (second minor 1)  evidence\n";
  for (const TpuGeneration& g : kGenerations) {
    out += fmt::format(
        "{:<10} {:<18} {:<29} {}\n", g.name, pred_text(g.pred_2020),
        fmt::format("{} ({})", g.sixteen_bit_rows_2020, g.sixteen_bit_rows_for_one_2020),
        g.evidence_2020);
  }
  out += fmt::format(
      "tpu        in this era tpu-v3 ({}): most public OOM reports and XLA labels (2019-2021 TPU "
      "v2/v3) "
      "print pred as E(32) and bf16 as (8,128)(2,1)\n",
      generation_name(usual_generation(XlaEra::k2020)));
  out += "none       the layout exactly as written\n\nrules of every generation\n";
  for (const TpuRule& r : kSharedRules) out += fmt::format("  {:<48} {}\n", r.rule, r.evidence);
  return out;
}

}  // namespace tessera::tpu
