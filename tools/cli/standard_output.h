// Every byte the CLI prints goes through here, and every write is checked (`explain >
// /dev/full` exited 0 having written nothing). A failed write is an Error(kIo), so the command
// exits 2 with "error: cannot write standard output: No space left on device".
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

namespace tessera::cli {

// Writes all of `text` to standard output (write(2), retried on EINTR and short writes; no
// buffer that could fail later, unseen).
void write_output(std::string_view text);
// `json` as write_output of its text, indented by 2: what is not UTF-8 in the user's strings (a
// path, a pasted message) becomes U+FFFD instead of failing.
void write_json_output(const nlohmann::ordered_json& json);
// The same for standard error (warnings, notes). An error message itself goes through
// write_error_message, which cannot fail louder than the exit status.
void write_diagnostic(std::string_view text);
void write_error_message(std::string_view text);

// Once, before any command runs: library warnings (wisdom files) go through write_diagnostic as
// "warning: ..." like every other warning, and a file size limit (`ulimit -f`) makes a write fail
// with EFBIG, reported as "cannot write 'OUT': File too large", instead of SIGXFSZ killing the
// process with the output half written (tests/cli/test_hostile_round3_cli.py).
void install_process_guards();

}  // namespace tessera::cli
