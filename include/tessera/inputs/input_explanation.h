// `tessera explain PATH`: every array of an OOM report, HLO module or log, explained and ranked
// by the bytes its padding wastes, with the report's own numbers beside tessera's.
//
// Example: the report entry "Size: 32.00G / Shape: s32[8388608,8,4]{2,1,0:T(8,128)} / Unpadded
// size: 1.00G / Extra memory due to padding: 31.00G (32.0x expansion)" -> size 32 GiB, unpadded
// 1 GiB, padding 31 GiB, expansion 32, cause "dim 2: 4 -> 128 by the minor tile entry of
// T(8,128)", best fix x.reshape(-1, 128) (1 GiB), and no disagreement (tessera prints the same
// "32.00G", "1.00G", "31.00G (32.0x expansion)").
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/explain/program_fixes.h"
#include "tessera/explain/target_profile.h"
#include "tessera/inputs/input_arrays.h"

namespace tessera::inputs {

struct InputOptions {
  explain::Target target = explain::Target::kTpu;  // tiles for shapes written without them
  explain::PredStorage pred = explain::PredStorage::kTargetDefault;
  std::vector<int64_t> shards;  // shards per dimension (empty: whole arrays)
  std::size_t max_fixes = 5;
  explain::XlaEra era = explain::kCurrentXlaEra;
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
  std::vector<ArrayExplanation> arrays;  // sorted by padding bytes, most first
  std::vector<std::string> warnings;
  int64_t total_size_bytes = 0;
  int64_t total_unpadded_bytes = 0;
  int64_t total_saving_bytes = 0;  // if every array took its best fix
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

// {format, target, shards, arrays: [{shape, name, place, line, layout, shard_dims, size_bytes,
//   unpadded_bytes, padding_bytes, expansion, cause, suggestions, report: {size, unpadded_size,
//   padding}, disagreements, error}], warnings, total_size_bytes, total_unpadded_bytes,
//   total_padding_bytes, total_saving_bytes}
nlohmann::ordered_json input_explanation_json(const InputExplanation& e);

// A table of the `top` arrays wasting most (all when top == 0), totals, and "fixing the top N
// saves X of Y"; disagreements with the report and warnings set apart in capitals.
std::string input_explanation_text(const InputExplanation& e, std::size_t top);

// The embedded sample of `tessera explain` without arguments: a TPU OOM report in the newer
// layout whose allocations are real ones from public threads (jax#7502, pytorch/xla#1965,
// ColabFold#62), plus the s32[2048,1,128,128,4].
std::string_view sample_oom_report();

}  // namespace tessera::inputs
