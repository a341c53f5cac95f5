#include "tessera/strict_json.h"

#include <fmt/format.h>

#include <set>
#include <string>
#include <vector>

#include "tessera/error.h"

namespace tessera {
namespace {

using Json = nlohmann::json;

// Where the parser is: one frame per open object or array, so a duplicate key can be named with
// its path ("tensors[2]").
struct Frame {
  bool array = false;
  std::size_t elements = 0;  // arrays: elements seen so far
  std::string key;           // objects: the key of the value being read
  std::set<std::string> keys;
};

std::string path_of(const std::vector<Frame>& frames) {
  std::string path;
  for (std::size_t i = 0; i + 1 < frames.size(); ++i) {
    path += frames[i].array ? fmt::format("[{}]", frames[i].elements - 1)
                            : (path.empty() ? "" : ".") + frames[i].key;
  }
  return path.empty() ? "the top-level object" : path;
}

}  // namespace

Json parse_strict_json(std::string_view text, std::string_view what) {
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    throw Error(ErrorKind::kSyntax,
                fmt::format("{} is not valid JSON: byte {} is a NUL byte (JSON text has none; "
                            "a parser that stopped there would ignore what follows)",
                            what, nul + 1));
  }
  std::vector<Frame> frames;
  const auto element_starts = [&] {
    if (!frames.empty() && frames.back().array) ++frames.back().elements;
  };
  const Json::parser_callback_t callback = [&](int, Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
      case Json::parse_event_t::array_start:
        element_starts();
        if (frames.size() >= kMaxJsonDepth) {
          throw Error(ErrorKind::kSyntax,
                      fmt::format("{} is not valid: {}: values nest deeper than {} levels "
                                  "(tessera reads at most {})",
                                  what, path_of(frames), kMaxJsonDepth, kMaxJsonDepth));
        }
        frames.push_back({event == Json::parse_event_t::array_start, 0, {}, {}});
        break;
      case Json::parse_event_t::key: {
        Frame& frame = frames.back();
        frame.key = parsed.get<std::string>();
        if (!frame.keys.insert(frame.key).second) {
          throw Error(ErrorKind::kSyntax,
                      fmt::format("{} is not valid: {}: the key '{}' is given twice (JSON "
                                  "readers disagree on which one counts)",
                                  what, path_of(frames), frame.key));
        }
        break;
      }
      case Json::parse_event_t::object_end:
      case Json::parse_event_t::array_end:
        frames.pop_back();
        break;
      case Json::parse_event_t::value:
        element_starts();
        break;
    }
    return true;
  };
  try {
    return Json::parse(text.begin(), text.end(), callback);
  } catch (const Json::parse_error& e) {
    throw Error(ErrorKind::kSyntax,
                fmt::format("{} is not valid JSON (byte {}): {}", what, e.byte, e.what()));
  } catch (const Json::exception& e) {
    // The parser's other refusal: a number too large for a double (out_of_range.406, e.g.
    // 1e400), whose message quotes the whole number; found by fuzz_npu_plan.
    constexpr std::size_t kQuoted = 160;
    const std::string_view message = e.what();
    throw Error(ErrorKind::kSyntax,
                fmt::format("{} is not valid JSON: {}{}", what, message.substr(0, kQuoted),
                            message.size() > kQuoted ? "..." : ""));
  }
}

}  // namespace tessera
