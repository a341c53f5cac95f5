// `tessera explain PATH` / `tessera explain -`: a thin front end over tessera/inputs.
#include "explain_input_command.h"

#include <filesystem>
#include <iostream>

#include "tessera/error.h"
#include "tessera/inputs/input_explanation.h"
#include "tessera/inputs/jax_layout.h"
#include "tessera/integer_text.h"
#include "tessera/xla/notation.h"

namespace tessera::cli {
namespace {

constexpr std::size_t kTopArrays = 20;

inputs::InputOptions options_for(const ExplainInputArguments& args, explain::Target target,
                                 explain::PredStorage pred, explain::XlaEra era) {
  inputs::InputOptions options;
  options.target = target;
  options.pred = pred;
  options.era = era;
  if (!args.shards.empty()) options.shards = parse_integer_list(args.shards, "--shards count");
  return options;
}

}  // namespace

void add_explain_input_options(CLI::App* explain, ExplainInputArguments& args) {
  explain->add_flag("--all", args.all, "With PATH: list every array, not the top 20 by waste");
  explain->add_option("--shards", args.shards,
                      "Shards per dimension, e.g. 8,1: explain the per-device shard (uneven "
                      "shards padded up as XLA does)");
  explain->add_option("--jax-layout", args.jax_layout,
                      "JAX layout repr for SHAPE: 'Layout(major_to_minor=(0, 1), tiling=((8, "
                      "128),), ...)' or Format(layout=...); major_to_minor is XLA's "
                      "minor_to_major reversed");
}

std::string shape_with_jax_layout(const std::string& shape, const ExplainInputArguments& args,
                                  std::string& note) {
  if (args.jax_layout.empty()) return shape;
  if (shape.empty())
    throw Error(ErrorKind::kInvalid, "--jax-layout needs a SHAPE, e.g. f32[8,256]");
  const inputs::JaxLayout layout = inputs::parse_jax_layout(args.jax_layout);
  note = inputs::jax_order_note(layout);
  return xla::print_shape(inputs::apply_jax_layout(xla::parse_shape(shape), layout));
}

std::string shape_with_shards(const std::string& shape, const ExplainInputArguments& args,
                              explain::ShardSplit& split) {
  if (args.shards.empty()) return shape;
  return inputs::sharded_shape_text(shape, parse_integer_list(args.shards, "--shards count"),
                                    split);
}

bool is_explain_input(const std::string& argument) {
  if (argument == "-") return true;
  std::error_code error;
  return std::filesystem::is_regular_file(argument, error);
}

void run_explain_input(const std::string& argument, const ExplainInputArguments& args,
                       explain::Target target, explain::PredStorage pred, explain::XlaEra era,
                       bool json) {
  const inputs::InputOptions options = options_for(args, target, pred, era);
  const inputs::InputReading reading = inputs::read_input(inputs::read_input_text(argument));
  const inputs::InputExplanation e = inputs::explain_input(reading, options);
  if (json) {
    auto out = inputs::input_explanation_json(e);
    out["input"] = argument;
    if (!options.shards.empty()) out["shards"] = options.shards;
    // The path is the user's bytes: replace what is not UTF-8 rather than fail on it.
    std::cout << out.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
  } else {
    std::cout << inputs::input_explanation_text(e, args.all ? 0 : kTopArrays);
  }
  for (const auto& warning : e.warnings) std::cerr << "warning: " << warning << "\n";
}

std::string sample_report_text() {
  const auto e = inputs::explain_input(inputs::read_input(inputs::sample_oom_report()), {});
  return "== Which arrays of this TPU out-of-memory report waste the memory, and what do I "
         "change?\n"
         "$ tessera explain report.txt   (the embedded sample report; any OOM report, HLO dump or "
         "log works, '-' reads stdin)\n" +
         inputs::input_explanation_text(e, kTopArrays) + "\n";
}

nlohmann::ordered_json sample_report_json() {
  return inputs::input_explanation_json(
      inputs::explain_input(inputs::read_input(inputs::sample_oom_report()), {}));
}

}  // namespace tessera::cli
