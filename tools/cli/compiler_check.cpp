#include "compiler_check.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tessera/error.h"
#include "tessera/explain/compiler_reply.h"
#include "tessera/utf8_text.h"

extern char** environ;

namespace tessera::cli {
namespace {

constexpr const char* kInstall = "pip install \"jax[tpu]==0.10.2\"";

}  // namespace

std::string python_command() {
  const char* given = std::getenv("TESSERA_PYTHON");
  return given != nullptr && *given != '\0' ? given : "python3";
}

namespace {

// How long the child may take: importing jax and compiling one array deviceless takes seconds;
// TESSERA_COMPILER_SECONDS changes it (tests/cli/test_hostile_round3_cli.py sets 2).
int time_limit_ms() {
  constexpr int kDefaultSeconds = 300;
  const char* given = std::getenv("TESSERA_COMPILER_SECONDS");
  if (given == nullptr || *given == '\0') return kDefaultSeconds * 1000;
  char* end = nullptr;
  const long seconds = std::strtol(given, &end, 10);
  if (*end != '\0' || seconds < 1 || seconds > 86400) {
    throw Error(ErrorKind::kArgument,
                fmt::format("TESSERA_COMPILER_SECONDS must be a whole number of seconds from 1 to "
                            "86400, not '{}'",
                            printable_utf8(given)));
  }
  return static_cast<int>(seconds) * 1000;
}

// Ends the child's whole process group (a grandchild holding its stdout open included) and
// reaps the child, whatever happened.
class ChildGroup {
 public:
  explicit ChildGroup(pid_t pid) : pid_(pid) {}
  ~ChildGroup() {
    ::kill(-pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  ChildGroup(const ChildGroup&) = delete;
  ChildGroup& operator=(const ChildGroup&) = delete;
  // True once the child itself has exited (and was reaped; its group is still ended).
  bool exited() {
    int status = 0;
    if (!exited_ && ::waitpid(pid_, &status, WNOHANG) == pid_) exited_ = true;
    return exited_;
  }

 private:
  pid_t pid_;
  bool exited_ = false;
};

// Reads the child's stdout until it closes, the child exits, the output passes the bound or the
// time is up; the last two are errors.
std::string read_bounded(int descriptor, ChildGroup& child, int limit_ms, std::size_t max_bytes,
                         std::string_view name) {
  ::fcntl(descriptor, F_SETFL, ::fcntl(descriptor, F_GETFL) | O_NONBLOCK);
  std::string out;
  std::array<char, 4096> buffer{};
  const auto start = std::chrono::steady_clock::now();
  constexpr int kPollMs = 100;  // how soon an exited child whose grandchild holds stdout is seen
  for (;;) {
    const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::steady_clock::now() - start)
                            .count();
    if (waited >= limit_ms) {
      throw Error(ErrorKind::kIo,
                  fmt::format("{}: its Python process gave no answer in {} s and was ended "
                              "(TESSERA_COMPILER_SECONDS allows longer)",
                              name, limit_ms / 1000));
    }
    const bool gone = child.exited();  // before reading: all it wrote is in the pipe by now
    pollfd ready{descriptor, POLLIN, 0};
    const int polled = ::poll(
        &ready, 1, gone ? 0 : static_cast<int>(std::min<int64_t>(kPollMs, limit_ms - waited)));
    if (polled < 0 && errno != EINTR) break;
    for (;;) {
      const ssize_t got = ::read(descriptor, buffer.data(), buffer.size());
      if (got > 0) {
        out.append(buffer.data(), static_cast<std::size_t>(got));
        if (out.size() > max_bytes) {
          throw Error(ErrorKind::kIo,
                      fmt::format("{}: its Python process printed more than {} bytes and was ended",
                                  name, max_bytes));
        }
        continue;
      }
      if (got == 0) return out;  // every writer closed it
      if (errno == EINTR) continue;
      break;  // EAGAIN: nothing more for now
    }
    if (gone) return out;
  }
  return out;
}

}  // namespace

// In a process group of its own, bounded in time and size: a child that hangs, floods or leaves
// a grandchild holding its stdout is ended whole (tests/cli/test_hostile_round3_cli.py).
std::string run_python_script(const std::string& python, const char* script,
                              const std::vector<std::string>& arguments, const std::string& request,
                              std::string_view option, std::size_t max_bytes) {
  const int limit_ms = time_limit_ms();
  int to_child[2];
  int from_child[2];
  if (pipe2(to_child, O_CLOEXEC) != 0) {
    throw Error(ErrorKind::kIo,
                fmt::format("cannot start {}: {}", printable_utf8(python), std::strerror(errno)));
  }
  if (pipe2(from_child, O_CLOEXEC) != 0) {
    const int why = errno;
    close(to_child[0]);
    close(to_child[1]);
    throw Error(ErrorKind::kIo,
                fmt::format("cannot start {}: {}", printable_utf8(python), std::strerror(why)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, to_child[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, from_child[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);  // a group of its own, ended whole
  std::string text = script;
  std::vector<char*> argv = {const_cast<char*>(python.c_str()), const_cast<char*>("-c"),
                             text.data()};
  for (const std::string& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawned =
      posix_spawnp(&pid, python.c_str(), &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  close(to_child[0]);
  close(from_child[1]);
  if (spawned != 0) {
    close(to_child[1]);
    close(from_child[0]);
    throw Error(ErrorKind::kUnsupported,
                fmt::format("{} cannot run '{}': {} (set TESSERA_PYTHON to another interpreter)",
                            option, printable_utf8(python), std::strerror(spawned)));
  }
  ChildGroup child(pid);
  // The request is far smaller than a pipe's buffer, so writing it cannot wait on the child; a
  // child that exits before reading must not kill us with SIGPIPE.
  struct sigaction ignore {};
  struct sigaction previous {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &previous);
  ::fcntl(to_child[1], F_SETFL, ::fcntl(to_child[1], F_GETFL) | O_NONBLOCK);
  const char* data = request.data();
  std::size_t left = request.size();
  while (left > 0) {
    const ssize_t written = write(to_child[1], data, left);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) break;  // the child's answer (or silence) says why
    data += written;
    left -= static_cast<std::size_t>(written);
  }
  close(to_child[1]);
  sigaction(SIGPIPE, &previous, nullptr);
  try {
    std::string out =
        read_bounded(from_child[0], child, limit_ms, max_bytes, option.substr(0, option.find(' ')));
    close(from_child[0]);
    return out;
  } catch (...) {
    close(from_child[0]);
    throw;
  }
}

ScriptReply parse_script_reply(const std::string& out) {
  std::istringstream lines(out);
  std::string hello_line;
  std::string answer_line;
  std::getline(lines, hello_line);
  std::getline(lines, answer_line);
  return {nlohmann::json::parse(hello_line, nullptr, false),
          nlohmann::json::parse(answer_line, nullptr, false)};
}

std::string ScriptReply::why_unavailable(std::string_view otherwise) const {
  if (hello.is_object() && hello.contains("unavailable") && hello["unavailable"].is_string()) {
    return hello["unavailable"].get<std::string>();
  }
  return std::string(otherwise);
}

CompilerAnswer ask_compiler(std::string_view element_type, const std::vector<int64_t>& dims,
                            std::string_view target) {
  const std::string python = python_command();
  const nlohmann::json request = {
      {"arrays", nlohmann::json::array({nlohmann::json::array({element_type, dims})})},
      {"target", target},
      {"sizes", true}};
  const explain::CompilerReply reply = explain::read_compiler_reply(
      run_python_script(python, kOracleScript, {}, request.dump() + "\n",
                        "--check-with-compiler (needs jax[tpu]: " + std::string(kInstall) + ")"));
  if (reply.unavailable) {
    throw Error(ErrorKind::kUnsupported,
                fmt::format("--check-with-compiler needs jax[tpu] in '{}' ({}; or set "
                            "TESSERA_PYTHON): {}",
                            printable_utf8(python), kInstall, *reply.unavailable));
  }
  if (reply.refused) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("the TPU compiler refused the array: {}", *reply.refused));
  }
  CompilerAnswer result;
  result.layout = reply.layout;
  result.size_bytes = reply.size_bytes;
  result.python = printable_utf8(python);
  result.jax = reply.jax;
  result.libtpu = reply.libtpu;
  return result;
}

}  // namespace tessera::cli
