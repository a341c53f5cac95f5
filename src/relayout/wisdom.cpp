#include "relayout/wisdom.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>

#include "relayout/host_profile.h"
#include "tessera/error.h"
#include "tessera/file_errors.h"
#include "tessera/relayout/planner.h"
#include "tessera/utf8_text.h"
#include "tessera/version.h"

namespace tessera::relayout {
namespace {

using nlohmann::json;

// Raised when what a variant name means changes, so that older wisdom is not read as new.
// 2: keys name their size class, and runs' stores are recorded as measured (plain or stream).
constexpr int kVariantsVersion = 2;
constexpr int kFormat = 1;

std::string build_text() {
#if defined(__clang__)
  const std::string compiler = fmt::format("clang {}", __clang_version__);
#elif defined(__GNUC__)
  const std::string compiler = fmt::format("gcc {}", __VERSION__);
#else
  const std::string compiler = "unknown compiler";
#endif
  return fmt::format("tessera {} ({}, variants {})", TESSERA_VERSION, compiler, kVariantsVersion);
}

json fingerprint() {
  const HostFacts& h = host_facts();
  return json{{"vendor", h.vendor},       {"family", h.family},         {"model", h.model},
              {"l1d_bytes", h.l1d_bytes}, {"l2_bytes", h.l2_bytes},     {"llc_bytes", h.llc_bytes},
              {"simd", h.simd_targets},   {"huge_pages", h.huge_pages}, {"threads", h.threads},
              {"build", build_text()}};
}

json choice_json(const WisdomChoice& c) {
  return json{{"variant", c.variant}, {"measured", c.measured},       {"mode", c.mode},
              {"ratio", c.ratio},     {"model_ratio", c.model_ratio}, {"variants", c.variants},
              {"tries", c.tries}};
}

// Throws std::exception (nlohmann's) when a field is missing or of another type.
WisdomChoice choice_from(const json& j) {
  WisdomChoice c;
  c.variant = j.at("variant").get<std::string>();
  c.measured = j.at("measured").get<std::string>();
  c.mode = j.value("mode", std::string("measure"));
  c.ratio = j.value("ratio", 0.0);
  c.model_ratio = j.value("model_ratio", 0.0);
  c.variants = j.value("variants", 0);
  c.tries = j.value("tries", 0);
  parse_variant(c.variant);  // an unknown token throws
  return c;
}

using Choices = std::map<std::string, WisdomChoice>;

struct Store {
  std::mutex mutex;
  bool settled = false;  // the default file was read, or wisdom was set some other way
  json here = fingerprint();
  Choices choices;                               // this host's
  std::vector<std::pair<json, Choices>> others;  // kept for export
  WarningHandler handler = [](const std::string& message) {
    std::cerr << "tessera: warning: " << message << '\n';
  };
};

Store& store() {
  static Store s;
  return s;
}

std::string shown(const std::filesystem::path& file) {
  return printable_utf8(file.string());
}

// This host's choices and the others' from wisdom JSON; throws Error(kSyntax) saying what is
// wrong when it is not tessera wisdom.
struct Parsed {
  Choices here;
  std::vector<std::pair<json, Choices>> others;
  int skipped = 0;  // choices whose variants this build does not know
};

Parsed parse_wisdom(std::string_view text, const json& here) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw Error(ErrorKind::kSyntax, fmt::format("not JSON ({})", printable_utf8(e.what())));
  }
  if (!j.is_object() || !j.contains("tessera_wisdom") || !j.contains("hosts") ||
      !j["hosts"].is_array()) {
    throw Error(ErrorKind::kSyntax, "not tessera wisdom (no \"tessera_wisdom\" and \"hosts\")");
  }
  if (j["tessera_wisdom"] != kFormat) {
    throw Error(ErrorKind::kSyntax,
                fmt::format("wisdom format {}, this build reads {}",
                            printable_utf8(j["tessera_wisdom"].dump()), kFormat));
  }
  Parsed parsed;
  for (const json& host : j["hosts"]) {
    if (!host.is_object() || !host.contains("host") || !host.contains("choices") ||
        !host["choices"].is_object()) {
      throw Error(ErrorKind::kSyntax, "a host without \"host\" and \"choices\"");
    }
    Choices choices;
    for (const auto& [key, value] : host["choices"].items()) {
      try {
        choices[key] = choice_from(value);
      } catch (const std::exception&) {
        ++parsed.skipped;
      }
    }
    if (host["host"] == here) {
      for (auto& [key, value] : choices) parsed.here[key] = std::move(value);
    } else {
      parsed.others.emplace_back(host["host"], std::move(choices));
    }
  }
  return parsed;
}

std::string read_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw file_error("read", shown(file), errno);
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw file_error("read", shown(file), errno);
  return text.str();
}

// Reads `file` into the store (the caller holds the lock); warns and reads nothing when it is not
// usable wisdom for this host.
int load_locked(Store& s, const std::filesystem::path& file) {
  s.settled = true;
  s.choices.clear();
  s.others.clear();
  std::error_code missing;
  if (file.empty() || !std::filesystem::exists(file, missing)) return 0;
  std::string reason;
  try {
    Parsed parsed = parse_wisdom(read_file(file), s.here);
    s.others = std::move(parsed.others);
    if (parsed.here.empty()) {
      reason = "it holds no choices measured on this host by this build (" + build_text() +
               "); run `tessera tune` to measure them";
    } else {
      s.choices = std::move(parsed.here);
      return static_cast<int>(s.choices.size());
    }
  } catch (const Error& e) {
    reason = e.message();
  }
  const std::string message = fmt::format("ignoring wisdom file '{}': {}", shown(file), reason);
  s.handler(message);
  return 0;
}

void settle_locked(Store& s) {
  if (!s.settled) load_locked(s, default_wisdom_path());
}

// Nearest thread count first, then fewer threads on a tie.
int thread_distance(int a, int b) {
  return 2 * std::abs(a - b) + (b > a ? 1 : 0);
}

}  // namespace

std::string ProblemKey::text() const {
  return fmt::format("{}/{}B/{}/{}/t{}", kernel_class_name(kernel_class), element_bytes, pitch,
                     size_class_name(size), threads);
}

std::optional<FoundWisdom> find_wisdom(const ProblemKey& key) {
  Store& s = store();
  std::lock_guard lock(s.mutex);
  settle_locked(s);
  const std::string exact = key.text();
  if (const auto it = s.choices.find(exact); it != s.choices.end())
    return FoundWisdom{exact, it->second, true};
  // The same class and element size: another pitch, else the nearest threads, else the other
  // size class (a choice measured in one is a guess for the other: the last resort).
  const std::string prefix =
      fmt::format("{}/{}B/", kernel_class_name(key.kernel_class), key.element_bytes);
  std::optional<FoundWisdom> best;
  int best_distance = 0;
  for (const auto& [text, choice] : s.choices) {
    if (!text.starts_with(prefix)) continue;
    // The rest: pitch/size/tN.
    const std::string rest = text.substr(prefix.size());
    const std::size_t a = rest.find('/');
    const std::size_t b = a == std::string::npos ? a : rest.find('/', a + 1);
    if (b == std::string::npos || rest.compare(b, 2, "/t") != 0) continue;
    const std::string pitch = rest.substr(0, a);
    const std::string size = rest.substr(a + 1, b - a - 1);
    const int threads = std::atoi(rest.c_str() + b + 2);
    const int distance = (1 << 20) * (size == size_class_name(key.size) ? 0 : 1) +
                         4 * thread_distance(key.threads, threads) + (pitch == key.pitch ? 0 : 1);
    if (!best || distance < best_distance) {
      best = FoundWisdom{text, choice, false};
      best_distance = distance;
    }
  }
  return best;
}

void record_wisdom(const ProblemKey& key, const WisdomChoice& choice) {
  Store& s = store();
  std::lock_guard lock(s.mutex);
  settle_locked(s);
  s.choices[key.text()] = choice;
}

std::string today_utc() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", &utc);
  return text;
}

void warn(const std::string& message) {
  Store& s = store();
  WarningHandler handler;
  {
    std::lock_guard lock(s.mutex);
    handler = s.handler;
  }
  if (handler) handler(message);
}

WarningHandler set_warning_handler(WarningHandler handler) {
  Store& s = store();
  std::lock_guard lock(s.mutex);
  std::swap(s.handler, handler);
  return handler;
}

std::filesystem::path default_wisdom_path() {
  if (const char* chosen = std::getenv("TESSERA_WISDOM")) return chosen;
  const char* cache = std::getenv("XDG_CACHE_HOME");
  if (cache != nullptr && std::filesystem::path(cache).is_absolute())
    return std::filesystem::path(cache) / "tessera" / "wisdom.json";
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') return {};
  return std::filesystem::path(home) / ".cache" / "tessera" / "wisdom.json";
}

int use_wisdom_file(const std::filesystem::path& file) {
  Store& s = store();
  std::lock_guard lock(s.mutex);
  return load_locked(s, file);
}

std::string export_wisdom() {
  Store& s = store();
  std::lock_guard lock(s.mutex);
  settle_locked(s);
  json hosts = json::array();
  const auto add = [&](const json& host, const Choices& choices) {
    json c = json::object();
    for (const auto& [key, choice] : choices) c[key] = choice_json(choice);
    hosts.push_back(json{{"host", host}, {"choices", c}});
  };
  if (!s.choices.empty()) add(s.here, s.choices);
  for (const auto& [host, choices] : s.others) add(host, choices);
  return json{{"tessera_wisdom", kFormat}, {"hosts", hosts}}.dump(2) + "\n";
}

int import_wisdom(std::string_view text, std::string_view origin) {
  Store& s = store();
  std::lock_guard lock(s.mutex);
  settle_locked(s);
  Parsed parsed;
  try {
    parsed = parse_wisdom(text, s.here);
  } catch (const Error& e) {
    throw Error(ErrorKind::kSyntax, fmt::format("cannot import wisdom from '{}': {}",
                                                printable_utf8(origin), e.message()));
  }
  for (auto& [key, choice] : parsed.here) s.choices[key] = choice;
  for (auto& other : parsed.others) {
    const auto same = std::find_if(s.others.begin(), s.others.end(),
                                   [&](const auto& o) { return o.first == other.first; });
    if (same == s.others.end()) {
      s.others.push_back(std::move(other));
    } else {
      for (auto& [key, choice] : other.second) same->second[key] = choice;
    }
  }
  return static_cast<int>(parsed.here.size());
}

void save_wisdom(const std::filesystem::path& file) {
  const std::string text = export_wisdom();
  std::error_code error;
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), error);
  if (error) throw file_error("create the folder of", shown(file), error.value());
  std::filesystem::path temporary = file;
  temporary += fmt::format(".{}.tmp", ::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw file_error("write", shown(file), errno);
    out << text;
    out.flush();
    if (!out) {
      const int why = errno;
      std::filesystem::remove(temporary, error);
      throw file_error("write", shown(file), why);
    }
  }
  std::filesystem::rename(temporary, file, error);
  if (error) {
    std::filesystem::remove(temporary, error);
    throw file_error("write", shown(file), error.value());
  }
}

void forget_wisdom() {
  Store& s = store();
  std::lock_guard lock(s.mutex);
  s.settled = true;
  s.choices.clear();
  s.others.clear();
}

std::string host_description() {
  const HostFacts& h = host_facts();
  const auto size = [](int64_t bytes) {
    return bytes >= (int64_t{1} << 20) ? fmt::format("{} MiB", bytes >> 20)
                                       : fmt::format("{} KiB", bytes >> 10);
  };
  std::string cpu = h.cpu_name.empty() ? "unknown CPU" : printable_utf8(h.cpu_name);
  if (!h.vendor.empty())
    cpu += fmt::format(" ({} family {:#x} model {:#x})", h.vendor, h.family, h.model);
  return fmt::format("{}, L2 {}, last-level cache {}, SIMD {}, huge pages {}, {} thread{}", cpu,
                     size(h.l2_bytes), size(h.llc_bytes), fmt::join(h.simd_targets, " "),
                     h.huge_pages.empty() ? "unknown" : h.huge_pages, h.threads,
                     h.threads == 1 ? "" : "s");
}

}  // namespace tessera::relayout
