// `tessera explain PATH`: every array of an OOM report, HLO module or log, explained and ranked
// by the bytes its padding wastes, with the report's own numbers beside tessera's.
//
// Example: the report entry "Size: 32.00G / Shape: s32[8388608,8,4]{2,1,0:T(8,128)} / Unpadded
// size: 1.00G / Extra memory due to padding: 31.00G (32.0x expansion)" -> size 32 GiB, unpadded
// 1 GiB, padding 31 GiB, expansion 32, cause "dim 2: 4 -> 128 by the minor tile entry of
// T(8,128)", best fix x.reshape(-1) (1 GiB, as the compiler lays out s32[268435456]), and no
// disagreement (tessera prints the same "32.00G", "1.00G", "31.00G (32.0x expansion)").
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/explain/program_fixes.h"
#include "tessera/inputs/input_arrays.h"
#include "tessera/tpu/target_profile.h"

namespace tessera::inputs {

struct InputOptions {
  // Tiles for shapes written without them, and the compiler whose choices they reproduce.
  tpu::TpuTarget target = tpu::parse_tpu_target("tpu");
  std::vector<int64_t> shards;  // shards per dimension (empty: whole arrays)
  std::size_t max_fixes = 5;
};

struct ArrayExplanation {
  InputArray input;
  std::string error;   // why the array could not be explained (then the numbers are 0)
  std::string layout;  // canonical, with the target's tiles (and per shard when sharded)
  std::vector<int64_t> shard_dims;
  int64_t size_bytes = 0;
  int64_t unpadded_bytes = 0;
  std::string cause;  // the biggest padding source, in a few words
  std::vector<explain::ProgramFix> fixes;
  std::vector<std::string>
      disagreements;  // report text vs tessera's, e.g. "Size: report 2.00G, tessera 1.00G"
  int64_t padding_bytes() const { return size_bytes - unpadded_bytes; }
};

struct InputExplanation {
  InputFormat format = InputFormat::kShapeText;
  std::vector<ArrayExplanation> arrays;    // sorted by padding bytes, most first
  std::vector<OutOfMemory> out_of_memory;  // the compiler's summaries found in the text
  std::vector<std::string> warnings;
  // The totals count each buffer once: the arrays whose input.same_buffer is empty.
  std::size_t buffers = 0;
  int64_t total_size_bytes = 0;
  int64_t total_unpadded_bytes = 0;
  int64_t total_saving_bytes = 0;  // if every buffer took its best fix
};

// The per-device shard of `dims` split `shards` ways per dimension; uneven splits round up, as
// XLA pads the last shard: shard_dimensions({10, 128}, {4, 1}) == {3, 128}. Throws Error naming
// the problem for a count that does not match the rank or is not positive.
std::vector<int64_t> shard_dimensions(const std::vector<int64_t>& dims,
                                      const std::vector<int64_t>& shards);

// The shape's text cut to one device's shard (shard_dimensions), with `split` set to the global
// dims and the counts for the fixes (program_fixes.h): "f32[1997,100,3]", {8, 1, 1} ->
// "f32[250,100,3]{2,1,0}". The same for `tessera explain SHAPE --shards` and Python's shards=.
std::string sharded_shape_text(std::string_view shape, const std::vector<int64_t>& shards,
                               explain::ShardSplit& split);

InputExplanation explain_input(const InputReading& reading, const InputOptions& options);

// `tessera explain FILE --json`: docs/reference/json/explain.schema.json ("an input file")
// describes the keys; arrays are ranked by the bytes their padding wastes, and the totals count
// each buffer once (`counted`, `same_buffer`).
nlohmann::ordered_json input_explanation_json(const InputExplanation& e);

// The same JSON text as input_explanation_json(e) with the keys of `extra` added, as dump(2)
// prints it plus a line break, handed to `write` array by array: 100,000 arrays never form one
// JSON tree (as one tree they took most of the memory: docs/notes/2026-11-27-explain-at-scale.md).
void write_input_explanation_json(const std::function<void(std::string_view)>& write,
                                  const InputExplanation& e, const nlohmann::ordered_json& extra);

// What the totals add up: "3 arrays", or "4 buffers of the 16 arrays read (each buffer once: 12
// arrays are fusion internals, tuple elements, aliases or entry layout entries of them; ...)".
std::string totals_count_text(const InputExplanation& e);

// A table of the `top` arrays wasting most (all when top == 0), the compiler's out-of-memory
// summaries, totals that say what they count, and "fixing the top N saves X of Y";
// disagreements with the report set apart in capitals. The warnings are the caller's to print
// (the CLI writes them to standard error once).
std::string input_explanation_text(const InputExplanation& e, std::size_t top);

// The embedded sample of `tessera explain` without arguments: a TPU OOM report in the newer
// layout whose allocations are real ones from public threads (jax#7502, pytorch/xla#1965,
// ColabFold#62), plus the s32[2048,1,128,128,4].
std::string_view sample_oom_report();

}  // namespace tessera::inputs
