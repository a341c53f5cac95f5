// `tessera explain PATH|-`: the input-file form of `tessera explain` (tessera/inputs).
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tessera/explain/program_fixes.h"
#include "tessera/tpu/target_profile.h"

namespace tessera::cli {

struct ExplainInputArguments {
  bool all = false;
  std::string shards;
  std::string jax_layout;      // --jax-layout REPR, applied to the SHAPE argument
  bool copies = false;         // --copies: the instructions of an HLO module that change a layout
  std::string memory_picture;  // --memory-picture PATH: HBM over the schedule, .svg or .html
  // FILEs after the first: the compiler's other files of the same dumped module.
  std::vector<std::string> more_files;
};

void add_explain_input_options(CLI::App* explain, ExplainInputArguments& args);

// True when `argument` names an input (an existing file, or "-" for stdin) rather than a shape.
bool is_explain_input(const std::string& argument);

// True when standard input is a pipe or a file (`cat oom.txt | tessera explain`, `< oom.txt`):
// `explain` without an argument then reads it as '-' does, instead of the built-in sample. A
// terminal, /dev/null or a closed descriptor is not text to read.
bool standard_input_is_piped();

// Explains every array of the input for `target` (the explain command resolves it: --target,
// else TESSERA_TARGET, else tpu, since shapes in reports are TPU shapes).
void run_explain_input(const std::string& argument, const ExplainInputArguments& args,
                       const tpu::TpuTarget& target, bool json);

// The SHAPE argument laid out as --jax-layout says (unchanged without it); `note` gets the line
// that says JAX's major_to_minor is XLA's minor_to_major reversed.
std::string shape_with_jax_layout(const std::string& shape, const ExplainInputArguments& args,
                                  std::string& note);

// The SHAPE argument cut to one device's shard as --shards says (unchanged without it), as
// `tessera explain PATH --shards` does; `split` gets the global dims and the counts.
std::string shape_with_shards(const std::string& shape, const ExplainInputArguments& args,
                              explain::ShardSplit& split);

// The no-argument default: the embedded sample report, as text or as the JSON object.
std::string sample_report_text();
nlohmann::ordered_json sample_report_json();

}  // namespace tessera::cli
