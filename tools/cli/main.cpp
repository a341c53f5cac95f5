// The tessera command-line tool: a thin front end over the library. Every command lives in its
// own file and registers itself (command_registry.h). Errors print "error: ..." and exit 2.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <new>
#include <utility>
#include <vector>

#include "cli_support.h"
#include "command_registry.h"
#include "tessera/error.h"
#include "tessera/version.h"

namespace tessera::cli {
namespace {

std::vector<std::pair<int, CommandInstaller>>& registry() {
  static std::vector<std::pair<int, CommandInstaller>> installers;
  return installers;
}

}  // namespace

CommandRegistration::CommandRegistration(int order, CommandInstaller install) {
  registry().emplace_back(order, std::move(install));
}

void install_all_commands(CLI::App& app) {
  auto& installers = registry();
  std::stable_sort(installers.begin(), installers.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [order, install] : installers) install(app);
}

}  // namespace tessera::cli

int main(int argc, char** argv) {
  CLI::App app{"tessera: where accelerator layouts put your elements, and how to get them there"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "tessera " TESSERA_VERSION);
  tessera::cli::install_all_commands(app);
  try {
    app.parse(argc, argv);
    return 0;
  } catch (const tessera::cli::ExitStatus& status) {
    return status.code;
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fflush(stdout);
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const tessera::Error& e) {
    std::fflush(stdout);
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    std::fflush(stdout);
    std::cerr << "error: out of memory: the request is too large for this machine\n";
    return 2;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
}
