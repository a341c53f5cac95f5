// The tessera(1) man page in troff (man macros), generated from the command tree
// (command_tree.h), i.e. from the same descriptions `--help` prints. The build runs
// `tessera man-page > tessera.1` and `cmake --install` puts it in share/man/man1.
//
//   .TH TESSERA 1 "" "tessera 0.2.0" "User Commands"
//   .SS "tessera xla layout"
//   .TP
//   \fB\-\-shape\fR \fIVALUE\fR
#pragma once

#include <string>
#include <vector>

#include "command_tree.h"

namespace tessera::cli {

std::string man_page(const std::vector<CommandSpec>& commands, const std::string& version);

}  // namespace tessera::cli
