// The CLI's commands and options as plain data, read from the CLI11 app that the command registry
// built (command_registry.h). Shell completions and the man page are generated from it, so they
// list exactly what `--help` lists and cannot drift from it.
//
//   tessera xla layout --shape S   ->  {path: {"xla", "layout"}, options: {{"--shape"}, ...}}
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace tessera::cli {

struct OptionSpec {
  std::vector<std::string> names;  // "-o", "--output"; a positional's name ("shape") alone
  std::string description;
  bool takes_value = false;
  bool positional = false;
};

struct SubcommandEntry {
  std::string name;
  std::string description;
};

struct CommandSpec {
  std::vector<std::string> path;  // {} for `tessera` itself, {"explain", "npu"} for a subcommand
  std::string description;
  std::vector<SubcommandEntry> subcommands;  // the visible direct subcommands
  std::vector<OptionSpec> options;           // visible options, positionals last as in --help
};

// Every visible command, depth first from the root; hidden ones (empty help group) are left out.
std::vector<CommandSpec> describe_commands(const CLI::App& root);

// The subcommands' names: {"layout", "tiles"}.
std::vector<std::string> subcommand_names(const CommandSpec& command);

// "xla layout" for {"xla", "layout"}; `separator` joins the words.
std::string join_path(const std::vector<std::string>& path, const std::string& separator);

}  // namespace tessera::cli
