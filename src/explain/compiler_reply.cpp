#include "tessera/explain/compiler_reply.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "tessera/error.h"
#include "tessera/strict_json.h"
#include "tessera/utf8_text.h"

namespace tessera::explain {
namespace {

using nlohmann::json;

// Longer text from the child is cut: a message is read by a person, not parsed.
constexpr std::size_t kMaxQuotedBytes = 1000;
// Sizes past this are not array sizes any TPU has (and would overflow tessera's sums).
constexpr double kMaxSize = 4611686018427387904.0;  // 2^62

[[noreturn]] void malformed(const std::string& why) {
  throw Error(ErrorKind::kInvalid,
              fmt::format("the compiler's answer is not what tessera asked for: {}", why));
}

std::string cut_and_escaped(std::string_view text) {
  const std::string_view cut = prefix_of_characters(text, kMaxQuotedBytes);
  return printable_utf8(cut) + (cut.size() < text.size() ? "..." : "");
}

json parse_line(std::string_view line, const char* what) {
  try {
    return parse_strict_json(line, what);
  } catch (const Error& e) {
    malformed(e.message());
  }
}

std::string text_field(const json& object, const char* key, const char* where) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_string())
    malformed(fmt::format("{} has no text \"{}\"", where, key));
  return cut_and_escaped(it->get_ref<const std::string&>());
}

// The first element of the array `key`, which must be the only one.
const json& only_element(const json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_array() || it->size() != 1)
    malformed(fmt::format("\"{}\" is not a list of one value", key));
  return it->front();
}

}  // namespace

CompilerReply read_compiler_reply(std::string_view output) {
  if (output.size() > kMaxCompilerReplyBytes) {
    malformed(fmt::format("it printed more than {} bytes", kMaxCompilerReplyBytes));
  }
  CompilerReply reply;
  const std::size_t first_end = output.find('\n');
  const std::string_view hello_line = output.substr(0, first_end);
  if (hello_line.find_first_not_of(" \t\r") == std::string_view::npos) {
    reply.unavailable = "it printed no answer (libtpu may have crashed)";
    return reply;
  }
  const json hello = parse_line(hello_line, "its first line");
  if (!hello.is_object()) malformed("its first line is not an object");
  if (hello.contains("unavailable")) {
    reply.unavailable = text_field(hello, "unavailable", "its first line");
    return reply;
  }
  const auto ready = hello.find("ready");
  if (ready == hello.end() || !ready->is_object())
    malformed("its first line has neither \"ready\" nor \"unavailable\"");
  reply.jax = text_field(*ready, "jax", "\"ready\"");
  reply.libtpu = text_field(*ready, "libtpu", "\"ready\"");

  const std::string_view rest =
      first_end == std::string_view::npos ? std::string_view() : output.substr(first_end + 1);
  const std::string_view answer_line = rest.substr(0, rest.find('\n'));
  if (answer_line.find_first_not_of(" \t\r") == std::string_view::npos) {
    throw Error(ErrorKind::kInvalid,
                "the TPU compiler printed no answer for the array (libtpu crashed)");
  }
  const json answer = parse_line(answer_line, "its answer");
  if (!answer.is_object()) malformed("its answer is not an object");
  if (answer.contains("error")) {
    reply.refused = text_field(answer, "error", "its answer");
    return reply;
  }
  const json& layout = only_element(answer, "layouts");
  if (!layout.is_string()) malformed("the layout is not text");
  reply.layout = cut_and_escaped(layout.get_ref<const std::string&>());
  const json& size = only_element(answer, "sizes");
  // A whole number in [0, 2^62), whether JSON wrote it as an integer or as 4096.0.
  const double value = size.is_number() ? size.get<double>() : -1;
  if (!size.is_number() || !(value >= 0) || value >= kMaxSize || std::floor(value) != value ||
      (size.is_number_integer() && !size.is_number_unsigned())) {
    malformed(fmt::format("the size {} is not a number of bytes", cut_and_escaped(size.dump())));
  }
  reply.size_bytes = size.is_number_unsigned() ? static_cast<int64_t>(size.get<uint64_t>())
                                               : static_cast<int64_t>(value);
  return reply;
}

}  // namespace tessera::explain
