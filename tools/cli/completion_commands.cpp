// `tessera completion bash|zsh|fish` and the hidden `tessera man-page` and `tessera cli-reference`:
// all read the command tree of the finished app, so every registered command is in them.
#include <cstdio>
#include <memory>
#include <string>

#include "cli_reference.h"
#include "command_registry.h"
#include "man_page.h"
#include "shell_completion.h"
#include "standard_output.h"
#include "tessera/version.h"

namespace tessera::cli {
namespace {

void install_completion(CLI::App& app) {
  auto shell = std::make_shared<std::string>();
  auto* completion = app.add_subcommand(
      "completion", "Print a tab-completion script: source <(tessera completion bash)");
  completion->add_option("shell", *shell, "bash, zsh or fish")
      ->required()
      ->check(CLI::IsMember({"bash", "zsh", "fish"}));
  completion->callback([&app, shell] {
    const auto commands = describe_commands(app);
    const std::string script = *shell == "bash"  ? bash_completion(commands)
                               : *shell == "zsh" ? zsh_completion(commands)
                                                 : fish_completion(commands);
    write_output(script);
  });

  // Hidden (empty group): the build uses it to write share/man/man1/tessera.1.
  auto* manual = app.add_subcommand("man-page", "Print the tessera(1) man page (troff)");
  manual->group("");
  manual->callback([&app] { write_output(man_page(describe_commands(app), TESSERA_VERSION)); });

  // Hidden: docs/reference/cli.md (tools/docs/generate.py writes it, tests compare it).
  auto* reference =
      app.add_subcommand("cli-reference", "Print the CLI reference page of the docs (Markdown)");
  reference->group("");
  reference->callback([&app] { write_output(cli_reference_markdown(describe_commands(app))); });
}

const CommandRegistration completion_registration(90, install_completion);

}  // namespace
}  // namespace tessera::cli
