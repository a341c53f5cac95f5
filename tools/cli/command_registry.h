// Each command family registers itself from its own file, so adding a command touches one file.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace tessera::cli {

using CommandInstaller = std::function<void(CLI::App& app)>;

// Registers `install` to add subcommands to the root app; `order` sorts the help listing.
struct CommandRegistration {
  CommandRegistration(int order, CommandInstaller install);
};

void install_all_commands(CLI::App& app);

// Thrown by a command whose output is complete but whose answer is "no" (`npu plan --check` on a
// plan with overlaps): main exits with `status` and prints nothing more. Bad input is an Error
// (status 2), never this.
struct ExitStatus {
  int status = 1;
};

}  // namespace tessera::cli
