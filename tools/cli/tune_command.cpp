// `tessera tune`: measures which kernel variants run fastest on this host and writes them as
// wisdom (tessera/relayout/planner.h), which every later plan on this host reads. Progress goes
// to stderr, what was chosen and why to stdout.
//
//   tessera tune                    # every kernel class, 1 and all threads, at most 10 s
//   tessera tune --list             # the classes, their candidate variants and the tokens
//   tessera tune --export -         # the wisdom in use, as JSON
//   tessera tune --import other.json
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "command_registry.h"
#include "standard_output.h"
#include "tessera/error.h"
#include "tessera/regular_file.h"
#include "tessera/relayout/planner.h"
#include "tessera/utf8_text.h"

namespace tessera::cli {
namespace {

struct TuneArguments {
  std::string wisdom;
  bool patient = false;
  double seconds = 0;
  std::vector<int> threads;
  std::vector<std::string> classes;
  bool list = false;
  std::string export_to;
  std::string import_from;
  bool quiet = false;
};

void print(const std::string& text) {
  write_output(text);
}

// Wisdom to import is read as every input is (tessera/regular_file.h): FIFOs and devices refused,
// the size checked first.
std::string read_text(const std::string& path) {
  constexpr int64_t kMaxImportBytes = int64_t{16} << 20;
  return read_regular_file(path, kMaxImportBytes);
}

void list_variants() {
  for (const std::string& k : relayout::kernel_class_names()) {
    const std::vector<std::string> names = relayout::variant_names(k);
    print(fmt::format("{} (model: {})\n", k, names.front()));
    for (std::size_t i = 1; i < names.size(); ++i) print(fmt::format("  {}\n", names[i]));
  }
  print("tokens (joined by '-'; a name may give only some):\n");
  for (const relayout::VariantTokenGroup& g : relayout::variant_tokens()) {
    const std::string tokens = fmt::format("{}", fmt::join(g.tokens, " "));
    print(fmt::format("  {:<10} {:<32} {}\n", g.parameter, tokens, g.meaning));
  }
}

void tune(const TuneArguments& args) {
  const std::filesystem::path file =
      args.wisdom.empty() ? relayout::default_wisdom_path() : std::filesystem::path(args.wisdom);
  if (args.list) return list_variants();
  if (!file.empty() && args.export_to.empty()) {
    // The file is written at the end: one that cannot be (a device, not wisdom, no room in its
    // folder) is refused now, before it is read as wisdom and before seconds of measuring.
    relayout::check_wisdom_file(file);
  }
  if (!file.empty()) relayout::use_wisdom_file(file);
  if (!args.export_to.empty()) {
    if (args.export_to == "-") return write_output(relayout::export_wisdom());
    relayout::save_wisdom(args.export_to);
    return print(fmt::format("wrote {}\n", printable_utf8(args.export_to)));
  }
  if (file.empty()) {
    throw Error(ErrorKind::kArgument,
                "no place for the wisdom: give --wisdom FILE (neither XDG_CACHE_HOME nor HOME "
                "is set)");
  }
  if (!args.import_from.empty()) {
    const int used = relayout::import_wisdom(read_text(args.import_from), args.import_from);
    relayout::save_wisdom(file);
    return print(fmt::format("imported {} choice{} for this host from {} into {}\n", used,
                             used == 1 ? "" : "s", printable_utf8(args.import_from),
                             printable_utf8(file.string())));
  }
  print(fmt::format("host: {}\n", relayout::host_description()));
  relayout::TuneOptions options;
  options.mode = args.patient ? relayout::PlannerMode::kPatient : relayout::PlannerMode::kMeasure;
  options.seconds = args.seconds;
  options.threads = args.threads;
  options.classes = args.classes;
  const bool terminal = ::isatty(STDERR_FILENO) == 1;
  if (!args.quiet) {
    options.progress = [terminal](const relayout::TuneProgress& p) {
      write_diagnostic(fmt::format("{}[{}/{}] {}{}", terminal ? "\r\033[K" : "", p.job, p.jobs,
                                   printable_utf8(p.what), terminal ? "" : "\n"));
    };
  }
  const relayout::TuneReport report = relayout::tune(options);
  if (!args.quiet && terminal) write_diagnostic("\r\033[K");
  std::size_t chosen = 0;
  for (const relayout::TuneChoice& c : report.choices) {
    if (c.variant.empty()) {
      print(fmt::format("{:<33} {:<32} {}\n", c.problem, "NOT MEASURED", c.why));
      continue;
    }
    ++chosen;
    print(fmt::format("{:<33} {:<32} {}; {} tries\n", c.problem, c.variant, c.why, c.tries));
  }
  relayout::save_wisdom(file);
  print(fmt::format("wrote {} ({} choice{} measured) in {:.1f} s\n", printable_utf8(file.string()),
                    chosen, chosen == 1 ? "" : "s", report.seconds));
  // What was measured is kept; a class left unmeasured is a failure, not a silent model.
  relayout::require_every_problem_measured(report);
}

void install_tune(CLI::App& app) {
  auto args = std::make_shared<TuneArguments>();
  auto* command = app.add_subcommand(
      "tune",
      "Measure which kernel variants run fastest on this host and save them as wisdom, which "
      "later conversions read (only speed changes, never the bytes written)");
  command->add_option("--wisdom", args->wisdom,
                      "Wisdom file to update (default: $XDG_CACHE_HOME/tessera/wisdom.json, or "
                      "~/.cache/tessera/wisdom.json)");
  command->add_flag("--patient", args->patient,
                    "Time each class longer (60 s in all by default) for steadier choices");
  command
      ->add_option("--seconds", args->seconds,
                   "At most this long in all (default 10, patient 60); fails when a class is "
                   "left unmeasured")
      ->check(CLI::Range(0.1, 3600.0));
  command
      ->add_option("--threads", args->threads, "Thread counts to tune (default: 1 and all cores)")
      ->check(CLI::Range(1, 1024));
  command->add_option("--class", args->classes,
                      "Kernel classes to tune (default: all; see --list)");
  auto* list = command->add_flag("--list", args->list,
                                 "List the kernel classes and the variants measured for each");
  auto* out =
      command->add_option("--export", args->export_to,
                          "Write the wisdom in use to FILE ('-': stdout) without measuring");
  auto* in = command->add_option("--import", args->import_from,
                                 "Merge wisdom exported elsewhere into the wisdom file");
  list->excludes(out)->excludes(in);
  out->excludes(in);
  command->add_flag("--quiet", args->quiet, "No progress on stderr");
  command->callback([args] { tune(*args); });
}

const CommandRegistration tune_registration(46, install_tune);

}  // namespace
}  // namespace tessera::cli
