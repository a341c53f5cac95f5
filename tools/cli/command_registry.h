// Each command family registers itself from its own file, so adding a command touches one file.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace tessera::cli {

using CommandInstaller = std::function<void(CLI::App& app)>;

// Registers `install` to add subcommands to the root app; `order` sorts the help listing and the
// generated CLI page, and no two registrations share one (install_all_commands refuses a tie).
struct CommandRegistration {
  CommandRegistration(int order, CommandInstaller install);
};

void install_all_commands(CLI::App& app);

}  // namespace tessera::cli
