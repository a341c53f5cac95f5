// `tessera explain PATH` / `tessera explain -`: a thin front end over tessera/inputs.
#include "explain_input_command.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "standard_output.h"
#include "tessera/error.h"
#include "tessera/file_errors.h"
#include "tessera/inputs/hlo_copies.h"
#include "tessera/inputs/input_explanation.h"
#include "tessera/inputs/layout_mismatch.h"
#include "tessera/inputs/program_memory.h"
#include "tessera/inputs/xla_dump_files.h"
#include "tessera/integer_text.h"
#include "tessera/render/memory_picture.h"
#include "tessera/utf8_text.h"
#include "tessera/xla/jax_layout.h"
#include "tessera/xla/notation.h"

namespace tessera::cli {
namespace {

constexpr std::size_t kTopArrays = 20;

inputs::InputOptions options_for(const ExplainInputArguments& args, const tpu::TpuTarget& target) {
  inputs::InputOptions options;
  options.target = target;
  if (!args.shards.empty()) options.shards = parse_integer_list(args.shards, "--shards count");
  return options;
}

}  // namespace

void add_explain_input_options(CLI::App* explain, ExplainInputArguments& args) {
  explain->add_flag("--all", args.all, "With PATH: list every array, not the top 20 by waste");
  explain->add_option("--shards", args.shards,
                      "Shards per dimension, e.g. 8,1: explain the per-device shard (uneven "
                      "shards padded up as XLA does)");
  explain->add_flag("--copies", args.copies,
                    "With PATH (an HLO module): every instruction that changes a layout (copy, "
                    "transpose, reshape, also in fusions), its bytes, largest first, and the "
                    "program change that removes it");
  explain->add_option("--memory-picture", args.memory_picture,
                      "With PATH (an HLO module or buffer assignment): draw HBM over the "
                      "schedule, the peak marked and the buffers alive there named, to this file "
                      "(.svg or .html)");
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
  note = xla::jax_order_note(xla::parse_jax_layout(args.jax_layout));
  return xla::shape_with_jax_layout(shape, args.jax_layout);
}

std::string shape_with_shards(const std::string& shape, const ExplainInputArguments& args,
                              explain::ShardSplit& split) {
  if (args.shards.empty()) return shape;
  return inputs::sharded_shape_text(shape, parse_integer_list(args.shards, "--shards count"),
                                    split);
}

// Anything that exists is a file to read (a FIFO or a device too, which the reader then refuses
// in the words every input gets, rather than reading its name as a shape).
bool is_explain_input(const std::string& argument) {
  if (argument == "-") return true;
  std::error_code error;
  if (std::filesystem::exists(std::filesystem::symlink_status(argument, error))) return true;
  // "reprot.txt", a typo: say the file is missing rather than "unknown element type 'reprot'".
  if (inputs::looks_like_path(argument)) throw file_error("read", argument, ENOENT);
  return false;
}

bool standard_input_is_piped() {
  struct stat status {};
  if (::fstat(STDIN_FILENO, &status) != 0 || ::isatty(STDIN_FILENO) == 1) return false;
  return S_ISFIFO(status.st_mode) || S_ISREG(status.st_mode) || S_ISSOCK(status.st_mode);
}

namespace {

void run_copies(const std::string& argument, const std::string& text,
                const ExplainInputArguments& args, bool json) {
  const inputs::HloCopies copies = inputs::find_copies(text);
  if (json) {
    auto out = inputs::copies_json(copies);
    out["input"] = printable_utf8(argument);
    write_json_output(out);
  } else {
    write_output(inputs::copies_text(copies, args.all ? 0 : kTopArrays));
  }
  for (const auto& warning : copies.warnings) write_diagnostic("warning: " + warning + "\n");
}

}  // namespace

namespace {

// The files of one dumped module that `argument` (and the FILEs after it) name: a dump folder's
// largest program, the files named together, or the module with what XLA wrote beside it.
inputs::XlaDumpFiles dump_files_of(const std::string& argument, const ExplainInputArguments& args) {
  std::error_code error;
  if (argument != "-" && std::filesystem::is_directory(argument, error)) {
    if (!args.more_files.empty()) {
      throw Error(ErrorKind::kInvalid,
                  fmt::format("'{}' is a dump folder: give it alone, or the files of one module",
                              printable_utf8(argument)));
    }
    return inputs::dump_folder_files(argument);
  }
  // A memory-usage report alone is refused with the files to give with it.
  if (args.more_files.empty() && !argument.ends_with("memory-usage-report.txt")) {
    return inputs::dump_files_beside(argument);
  }
  std::vector<std::string> named{argument};
  named.insert(named.end(), args.more_files.begin(), args.more_files.end());
  for (const std::string& path : named) {
    if (path == "-") {
      throw Error(ErrorKind::kInvalid,
                  "'-' reads one text from standard input: name the module's files instead");
    }
  }
  return inputs::dump_files_named(named);
}

}  // namespace

void run_explain_input(const std::string& given, const ExplainInputArguments& args,
                       const tpu::TpuTarget& target, bool json) {
  if (!args.jax_layout.empty()) {  // it was silently ignored
    throw Error(ErrorKind::kInvalid,
                fmt::format("--jax-layout lays out a SHAPE; '{}' is a file, whose arrays carry "
                            "their own layouts",
                            given));
  }
  const inputs::XlaDumpFiles files = dump_files_of(given, args);
  const std::string& argument = files.main();
  const std::string text = inputs::read_input_text(argument);
  if (args.copies) return run_copies(argument, text, args, json);
  const inputs::InputOptions options = options_for(args, target);
  std::string wrote;
  if (!args.memory_picture.empty()) {
    const auto memory = inputs::program_memory_of_dump(text, files, target);
    if (!memory) {
      throw Error(ErrorKind::kInvalid,
                  fmt::format("--memory-picture needs an HLO module or a buffer assignment; '{}' "
                              "is neither",
                              printable_utf8(argument)));
    }
    render::write_memory_picture(*memory, inputs::hbm_capacity_bytes(target),
                                 fmt::format("HBM over the schedule: {}", printable_utf8(argument)),
                                 args.memory_picture);
    wrote = fmt::format("wrote {}\n", printable_utf8(args.memory_picture));
  }
  const inputs::InputExplanation e = inputs::explain_input(inputs::read_input(text), options);
  if (json) {
    // The path is the user's bytes: escaped like every name tessera prints.
    nlohmann::ordered_json extra = {
        {"input", printable_utf8(argument)},
        {"memory_analysis", inputs::memory_analysis_json(text, files, target)}};
    if (!options.shards.empty()) extra["shards"] = options.shards;
    inputs::write_input_report_json([](std::string_view part) { write_output(part); }, text, e,
                                    extra);
  } else {
    std::string out = inputs::input_explanation_text(e, args.all ? 0 : kTopArrays);
    // The HBM story first; the padding of each array after it.
    if (const auto memory = inputs::program_memory_of_dump(text, files, target)) {
      out = inputs::program_memory_text(*memory, target, kTopArrays) + "\n" + out;
    }
    if (argument != given) {
      out = fmt::format("{}: the largest program of the dump, {}\n", printable_utf8(given),
                        printable_utf8(argument)) +
            out;
    }
    // A pasted layout-mismatch error is decoded beside the arrays it names.
    const std::vector<inputs::LayoutMismatch> mismatches = inputs::find_layout_mismatches(text);
    if (!mismatches.empty()) out += "\nlayout mismatches\n" + inputs::mismatches_text(mismatches);
    write_output(out + wrote);
  }
  // Once, on standard error (the JSON carries them too).
  for (const auto& warning : e.warnings) write_diagnostic("warning: " + warning + "\n");
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
