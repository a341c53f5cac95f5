// `tessera convert --from SHAPE --to SHAPE IN OUT`: real bytes from one layout into another.
// The conversion is the library's (tessera/relayout/file_conversion.h); this file holds the flags,
// the progress line and the words printed.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>
#include <string>
#include <vector>

#include "command_registry.h"
#include "progress_line.h"
#include "standard_output.h"
#include "target_options.h"
#include "tessera/io/atomic_file.h"
#include "tessera/relayout/file_conversion.h"
#include "tessera/relayout/planner.h"
#include "tessera/utf8_text.h"

namespace tessera::cli {
namespace {

struct ConvertArguments {
  std::string from;
  std::string to;
  std::string input;
  std::string output;
  int threads = 0;
  std::string fill;
  bool keep_padding = false;
  bool overwrite = false;
  bool quiet = false;
  bool progress = false;
  bool fsync = false;
  bool show_plan = false;
  std::string variant;
  std::string planner = "estimate";
  double planner_seconds = 0;
  std::string wisdom;
  TargetArguments targets;
};

// A word for the shell: the operand quoted so that it can be pasted as it is.
std::string shell_quoted(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// What was written, in the layout actually used (a target's tiles and the dimension order the
// compiler chose are filled in), and the operand that reads the file back: a shape written
// without tiles or order means something else when read back as written.
std::string written_text(const ConvertArguments& args, const relayout::FileConversion& conversion) {
  const std::string path = printable_utf8(args.output);
  const relayout::LayoutOperand& to = conversion.destination();
  const int64_t file_bytes = conversion.output_bytes();
  if (conversion.npy_output()) {
    return fmt::format(
        "wrote {} ({} bytes): {}[{}], a .npy file (np.load reads it; so does convert "
        "as IN, without --from)\n",
        path, file_bytes, element_type_name(to.type), fmt::join(to.dims, ","));
  }
  return fmt::format("wrote {} ({} bytes): {}\nread it back with --from {}\n", path, file_bytes,
                     printable_utf8(to.text), printable_utf8(shell_quoted(to.text)));
}

// The words of `--plan`, once under it (docs/reference/concepts.md has them at length).
constexpr const char* kPlanWords =
    "(simd: the vector instructions a kernel runs with on this CPU; none (memcpy): a plain memory "
    "copy. variant: how a kernel runs (block sizes, stores), measured by `tessera tune` or the "
    "model's pick; only the speed depends on it)\n";

void convert(const ConvertArguments& args) {
  relayout::FileConversionOptions options;
  options.from = args.from;
  options.to = args.to;
  options.target = resolve_target(args.targets, "none");
  options.fill = args.fill;
  options.overwrite = args.overwrite;
  options.relayout.threads = args.threads;
  options.relayout.keep_padding = args.keep_padding;
  options.relayout.planner = relayout::parse_planner_mode(args.planner);
  options.relayout.planner_seconds = args.planner_seconds;
  options.relayout.variant = relayout::ForcedVariant::parse(args.variant);
  if (!args.wisdom.empty()) relayout::use_wisdom_file(args.wisdom);
  relayout::FileConversion conversion(args.input, args.output, options);
  const relayout::LayoutOperand& from = conversion.source();
  const relayout::LayoutOperand& to = conversion.destination();
  if (args.show_plan) {  // what would run, with the input checked; OUT is not touched
    const relayout::RelayoutPlan& plan = conversion.plan();
    write_output(fmt::format("{} -> {}: {} piece{} on {} thread{}\n{}{}", from.text, to.text,
                             plan.piece_count(), plan.piece_count() == 1 ? "" : "s", plan.threads(),
                             plan.threads() == 1 ? "" : "s", plan.describe(), kPlanWords));
    return;
  }
  io::remove_temporary_files_on_signals();
  ProgressLine progress(args.quiet      ? ProgressMode::kNever
                        : args.progress ? ProgressMode::kAlways
                                        : ProgressMode::kAuto,
                        to.map->size_bytes());
  conversion.write([&](int64_t done, int64_t) { progress.update(done); }, args.fsync);
  write_output(written_text(args, conversion));
  if (conversion.npy_output() && to.type == ElementType::kBF16) {
    write_diagnostic(fmt::format(
        "note: NumPy has no bfloat16: '{}' holds it as '<V2', as np.save of an ml_dtypes array "
        "writes it; np.load('{}').view(ml_dtypes.bfloat16) reads it back\n",
        args.output, args.output));
  }
}

void install_convert(CLI::App& app) {
  auto args = std::make_shared<ConvertArguments>();
  auto* command =
      app.add_subcommand("convert", "Convert an array's bytes from one layout to another");
  command->add_option(
      "--from", args->from,
      "Source layout: an XLA shape 'f32[4096,4096]{1,0}' (optional for a .npy IN) or an NPU tensor "
      "npu:DEVICE:N,C,H,W:DTYPE:ADDRESS[:LAYOUT[:MODE]]");
  command->add_option(
      "--to", args->to,
      "Destination layout: an XLA shape 'f32[4096,4096]{1,0:T(8,128)}' (optional for "
      "a .npy OUT) or npu:DEVICE:N,C,H,W:DTYPE:ADDRESS[:LAYOUT[:MODE]], e.g. "
      "npu:bm1684:4,256,56,56:f32:0 (the file is the whole local memory image)");
  command->add_option("IN", args->input, "Input: raw layout bytes, or a .npy file")->required();
  command->add_option("OUT", args->output, "Output: raw layout bytes, or a .npy file")->required();
  command->add_option("--threads", args->threads, "Worker threads (default: all cores)")
      ->check(CLI::Range(1, 1024));
  auto* fill = command->add_option(
      "--fill", args->fill,
      "Value for the destination's padding (default 0): 1.5, -1, true, or raw bits 0x7fc00000");
  auto* keep = command->add_flag("--keep-padding", args->keep_padding,
                                 "Leave the destination's padding as it is in an existing raw OUT "
                                 "of the right size (zero in a new file)");
  fill->excludes(keep);
  command->add_flag("--overwrite", args->overwrite,
                    "Replace an existing OUT that is not an image of the NPU named by --to "
                    "(another size) instead of refusing");
  auto* quiet = command->add_flag("--quiet", args->quiet, "Never show a progress line");
  command
      ->add_flag("--progress", args->progress,
                 "Show a progress line on stderr even when it is not a terminal")
      ->excludes(quiet);
  command->add_flag("--fsync", args->fsync,
                    "Wait until OUT is on disk before exiting (like dd conv=fsync), so it survives "
                    "a power loss; by default it is left in the page cache, as cp and dd leave it");
  command->add_flag("--plan", args->show_plan,
                    "Print the plan instead of converting: each piece's kernel, the SIMD target "
                    "it runs with and its variant, measured or from the model (IN is checked; OUT "
                    "is not written)");
  command->add_option("--variant", args->variant,
                      "Force a kernel variant by name, e.g. r64-l2 (see `tessera tune --list`); "
                      "the bytes written are the same, only the speed changes");
  std::vector<std::string> modes;
  std::string modes_help;
  for (const relayout::PlannerModeInfo& m : relayout::planner_modes()) {
    modes.emplace_back(m.name);
    modes_help += fmt::format(
        "{}{}: {}{}", modes_help.empty() ? "" : "; ", m.name, m.description,
        m.default_seconds > 0
            ? fmt::format(" (up to {:g} s)", m.default_seconds)
            : std::string(m.mode == relayout::PlannerMode::kEstimate ? " (the default)" : ""));
  }
  command->add_option("--planner", args->planner, "How kernel variants are chosen: " + modes_help)
      ->check(CLI::IsMember(modes));
  command
      ->add_option("--planner-seconds", args->planner_seconds,
                   "measure and patient: at most this long timing candidates (default 2, patient "
                   "20)")
      ->check(CLI::Range(0.1, 3600.0));
  command->add_option("--wisdom", args->wisdom,
                      "Wisdom file to read (default: $XDG_CACHE_HOME/tessera/wisdom.json, written "
                      "by `tessera tune`)");
  add_target_options(command, args->targets,
                     "Tiles for a raw side's shape written without tiles (default: none, the "
                     "layouts exactly as written)");
  command->callback([args] { convert(*args); });
}

const CommandRegistration convert_registration(40, install_convert);

}  // namespace
}  // namespace tessera::cli
