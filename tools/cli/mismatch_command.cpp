// `tessera mismatch [TEXT|FILE|-]`: layout-mismatch errors decoded, a thin front end
// over tessera/inputs/layout_mismatch.h.
#include <memory>
#include <string>

#include "command_registry.h"
#include "explain_input_command.h"
#include "standard_output.h"
#include "tessera/error.h"
#include "tessera/inputs/input_arrays.h"
#include "tessera/inputs/layout_mismatch.h"

namespace tessera::cli {
namespace {

struct MismatchArguments {
  std::string input = "-";
  bool json = false;
};

void run_mismatch(const MismatchArguments& args) {
  // A file or '-' is read; anything else is the message itself, pasted as an argument.
  const std::string text =
      is_explain_input(args.input) ? inputs::read_input_text(args.input) : args.input;
  const auto mismatches = inputs::find_layout_mismatches(text);
  if (args.json) {
    write_json_output(inputs::mismatches_json(mismatches));
  } else {
    write_output(inputs::mismatches_text(mismatches));
  }
}

void install_mismatch(CLI::App& app) {
  auto args = std::make_shared<MismatchArguments>();
  auto* command = app.add_subcommand(
      "mismatch",
      "Decode a layout-mismatch error (XLA, Mosaic, Pallas): the two layouts, what differs, "
      "their costs, the usual cause");
  command->add_option("input", args->input,
                      "The error: a file holding it (a log, a traceback), '-' for stdin (the "
                      "default), or the message itself in quotes");
  command->add_flag("--json", args->json, "One JSON object instead of text");
  command->callback([args] { run_mismatch(*args); });
}

const CommandRegistration mismatch_registration(47, install_mismatch);

}  // namespace
}  // namespace tessera::cli
