// Tab-completion scripts for bash, zsh and fish, generated from the command tree (command_tree.h)
// by `tessera completion bash|zsh|fish`. Each completes subcommand names and options for the
// command typed so far, and file names for positionals and options that take a value.
//
//   source <(tessera completion bash)     # then: tessera xl<TAB> -> tessera xla
#pragma once

#include <string>
#include <vector>

#include "command_tree.h"

namespace tessera::cli {

std::string bash_completion(const std::vector<CommandSpec>& commands);
std::string zsh_completion(const std::vector<CommandSpec>& commands);
std::string fish_completion(const std::vector<CommandSpec>& commands);

}  // namespace tessera::cli
