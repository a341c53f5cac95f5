#include "standard_output.h"

#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <string>

#include "tessera/error.h"
#include "tessera/relayout/planner.h"
#include "tessera/utf8_text.h"

namespace tessera::cli {
namespace {

// 0 when all was written, else the errno of the write that failed.
int write_all(int descriptor, std::string_view text) {
  while (!text.empty()) {
    const ssize_t written = ::write(descriptor, text.data(), text.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    text.remove_prefix(static_cast<std::size_t>(written));
  }
  return 0;
}

void write_checked(int descriptor, std::string_view text, const char* stream) {
  if (const int error = write_all(descriptor, text); error != 0) {
    throw Error(ErrorKind::kIo,
                std::string("cannot write ") + stream + ": " + std::strerror(error));
  }
}

}  // namespace

void write_output(std::string_view text) {
  write_checked(STDOUT_FILENO, text, "standard output");
}

void write_json_output(const nlohmann::ordered_json& json) {
  write_output(json.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n");
}

void write_diagnostic(std::string_view text) {
  write_checked(STDERR_FILENO, text, "standard error");
}

void write_error_message(std::string_view text) {
  (void)write_all(STDERR_FILENO, text);  // nowhere left to report a failure: the status says it
}

void install_process_guards() {
  std::signal(SIGXFSZ, SIG_IGN);
  relayout::set_warning_handler([](const std::string& message) {
    write_diagnostic("warning: " + printable_lines(message) + "\n");
  });
}

}  // namespace tessera::cli
