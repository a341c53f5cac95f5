#include "compiler_check.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tessera/error.h"
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

std::string run_python_script(const std::string& python, const char* script,
                              const std::vector<std::string>& arguments, const std::string& request,
                              std::string_view option) {
  int to_child[2];
  int from_child[2];
  if (pipe(to_child) != 0 || pipe(from_child) != 0) {
    throw Error(ErrorKind::kIo, fmt::format("cannot start {}: {}", python, std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, to_child[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, from_child[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addclose(&actions, to_child[1]);
  posix_spawn_file_actions_addclose(&actions, from_child[0]);
  std::string text = script;
  std::vector<char*> argv = {const_cast<char*>(python.c_str()), const_cast<char*>("-c"),
                             text.data()};
  for (const std::string& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, python.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(to_child[0]);
  close(from_child[1]);
  if (spawned != 0) {
    close(to_child[1]);
    close(from_child[0]);
    throw Error(ErrorKind::kUnsupported,
                fmt::format("{} cannot run '{}': {} (set TESSERA_PYTHON to another interpreter)",
                            option, printable_utf8(python), std::strerror(spawned)));
  }
  // A child that exits before reading must not kill us with SIGPIPE.
  struct sigaction ignore {};
  struct sigaction previous {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &previous);
  const char* data = request.data();
  std::size_t left = request.size();
  while (left > 0) {
    const ssize_t written = write(to_child[1], data, left);
    if (written <= 0) break;  // the child's answer (or silence) says why
    data += written;
    left -= static_cast<std::size_t>(written);
  }
  close(to_child[1]);
  sigaction(SIGPIPE, &previous, nullptr);
  std::string out;
  std::array<char, 4096> buffer{};
  for (;;) {
    const ssize_t got = read(from_child[0], buffer.data(), buffer.size());
    if (got > 0) {
      out.append(buffer.data(), static_cast<std::size_t>(got));
    } else if (got == 0 || errno != EINTR) {
      break;
    }
  }
  close(from_child[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return out;
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
  const std::string out =
      run_python_script(python, kOracleScript, {}, request.dump() + "\n",
                        "--check-with-compiler (needs jax[tpu]: " + std::string(kInstall) + ")");
  const ScriptReply reply = parse_script_reply(out);
  const nlohmann::json& hello = reply.hello;
  if (!reply.ready()) {
    const std::string why = reply.why_unavailable("it printed no answer (libtpu may have crashed)");
    throw Error(ErrorKind::kUnsupported,
                fmt::format("--check-with-compiler needs jax[tpu] in '{}' ({}; or set "
                            "TESSERA_PYTHON): {}",
                            printable_utf8(python), kInstall, printable_utf8(why)));
  }
  const nlohmann::json& answer = reply.answer;
  if (answer.is_discarded() || !answer.is_object()) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("the TPU compiler aborted on {}[{}] for {} (libtpu crashed)",
                            element_type, fmt::format("{}", fmt::join(dims, ",")), target));
  }
  if (answer.contains("error")) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("the TPU compiler refused the array: {}",
                            printable_utf8(answer["error"].get<std::string>())));
  }
  CompilerAnswer result;
  result.layout = answer.at("layouts").at(0).get<std::string>();
  result.size_bytes = answer.at("sizes").at(0).get<int64_t>();
  result.python = python;
  result.jax = hello["ready"].value("jax", "?");
  result.libtpu = hello["ready"].value("libtpu", "?");
  return result;
}

}  // namespace tessera::cli
