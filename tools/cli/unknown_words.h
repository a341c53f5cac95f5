// The answer to a mistyped command or option: the nearest valid name and where --help lists them
// all, instead of CLI11's "A subcommand is required" or "The following arguments were not
// expected" (tests/cli/test_unknown_words_cli.py).
//
//   tessera inof 'f32[3]'        -> unknown command 'inof': did you mean 'info'? ...
//   tessera info --taget tpu ... -> unknown option '--taget' of 'tessera info': did you mean
//                                   '--target'? ...
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

namespace tessera::cli {

// After a CLI11 parse error: the message for the first word of argv that names no command or
// option where it stands, or nullopt when every word is known (the error was something else).
std::optional<std::string> unknown_word_message(const CLI::App& root, int argc,
                                                const char* const* argv);

}  // namespace tessera::cli
