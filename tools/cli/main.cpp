// The tessera command-line tool: a thin front end over the library. Every command lives in its
// own file and registers itself (command_registry.h). Errors print "error: ..." and exit 2.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli_support.h"
#include "command_registry.h"
#include "standard_output.h"
#include "tessera/error.h"
#include "tessera/utf8_text.h"
#include "tessera/version.h"
#include "unknown_words.h"

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
  std::sort(installers.begin(), installers.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  // Each order once: a tie would leave the help and the generated CLI page in the link order,
  // which is the order of the file names.
  for (std::size_t i = 1; i < installers.size(); ++i) {
    if (installers[i].first == installers[i - 1].first) {
      throw std::logic_error("two command families registered with order " +
                             std::to_string(installers[i].first));
    }
  }
  for (auto& [order, install] : installers) install(app);
}

}  // namespace tessera::cli

namespace {

// CLI11's help, version and usage errors, through the checked writers.
int exit_with(const CLI::App& app, const CLI::Error& e) {
  std::ostringstream out;
  std::ostringstream err;
  const int code = app.exit(e, out, err);
  tessera::cli::write_output(out.str());
  tessera::cli::write_diagnostic(err.str());
  return code;
}

// Whatever the message held, the line printed is valid UTF-8 without control characters.
int fail(std::string_view message) {
  tessera::cli::write_error_message("error: " + tessera::printable_lines(message) + "\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tessera: where accelerator layouts put your elements, and how to get them there"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "tessera " TESSERA_VERSION);
  tessera::cli::install_all_commands(app);
  tessera::cli::install_process_guards();
  try {
    try {
      app.parse(argc, argv);
      return 0;
    } catch (const CLI::CallForHelp& e) {
      return exit_with(app, e);
    } catch (const CLI::CallForAllHelp& e) {
      return exit_with(app, e);
    } catch (const CLI::CallForVersion& e) {
      return exit_with(app, e);
    }
  } catch (const tessera::cli::ExitStatus& status) {
    return status.code;
  } catch (const CLI::ParseError& e) {
    return fail(tessera::cli::unknown_word_message(app, argc, argv).value_or(e.what()));
  } catch (const tessera::Error& e) {
    return fail(e.what());
  } catch (const std::bad_alloc&) {
    return fail("out of memory: the request is too large for this machine");
  } catch (const std::exception& e) {
    return fail(e.what());
  }
}
