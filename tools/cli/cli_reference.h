// The CLI reference page of the documentation (docs/reference/cli.md) in Markdown, generated from
// the command tree (command_tree.h), i.e. from the same descriptions `--help`, the man page and the
// shell completions use. `tessera cli-reference` (hidden) prints it;
// tests/cli/test_cli_reference.py fails when the committed page differs, so the page cannot drift
// from the commands.
//
//   ## tessera explain npu
//   | option | description |
//   |---|---|
//   | `--device VALUE` | Device preset or npus=..,lmem=..,align=.. |
#pragma once

#include <string>
#include <vector>

#include "command_tree.h"

namespace tessera::cli {

std::string cli_reference_markdown(const std::vector<CommandSpec>& commands);

}  // namespace tessera::cli
