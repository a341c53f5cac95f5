#include "relayout/wisdom.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>

#include "relayout/host_profile.h"
#include "tessera/error.h"
#include "tessera/file_errors.h"
#include "tessera/io/atomic_file.h"
#include "tessera/regular_file.h"
#include "tessera/relayout/planner.h"
#include "tessera/strict_json.h"
#include "tessera/utf8_text.h"
#include "tessera/version.h"

namespace tessera::relayout {
namespace {

using nlohmann::json;

// Raised when what a variant name means changes, so that older wisdom is not read as new.
// 2: keys name their size class, and runs' stores are recorded as measured (plain or stream).
constexpr int kVariantsVersion = 2;
constexpr int kFormat = 1;
// A wisdom file holds a few hundred choices per host, a few KiB; anything near this is not one.
constexpr int64_t kMaxWisdomBytes = int64_t{16} << 20;

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
// Another host's entries, or this host's that this build cannot read (an unknown token), are
// kept as written: every entry of a wisdom file survives a merge, whoever reads it.
using Kept = std::vector<std::pair<json, json>>;  // (host fingerprint, its "choices" object)

struct Store {
  std::mutex mutex;
  bool settled = false;  // the default file was read, or wisdom was set some other way
  json here = fingerprint();
  Choices choices;               // this host's
  json unread = json::object();  // this host's entries this build cannot read
  Kept others;                   // kept for export
  Choices changed;               // recorded or imported by this process: win a merge
  Kept changed_others;           // imported by this process
  WarningHandler handler = [](const std::string& message) {
    std::cerr << "warning: " << printable_utf8(message) << '\n';
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
  json unread = json::object();  // this host's entries whose variants this build does not know
  Kept others;
};

// Merges `from` into `into`, entry by entry: `from`'s win.
void merge_kept(Kept& into, const Kept& from) {
  for (const auto& entry : from) {
    const auto& host = entry.first;
    const auto same =
        std::find_if(into.begin(), into.end(), [&](const auto& o) { return o.first == host; });
    if (same == into.end()) {
      into.push_back(entry);
    } else {
      for (const auto& [key, value] : entry.second.items()) same->second[key] = value;
    }
  }
}

Parsed parse_wisdom(std::string_view text, const json& here) {
  // Strict (tessera/strict_json.h): depth bounded, no key twice, no NUL.
  json j = parse_strict_json(text, "it");
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
    if (host["host"] != here) {
      merge_kept(parsed.others, {{host["host"], host["choices"]}});
      continue;
    }
    for (const auto& [key, value] : host["choices"].items()) {
      try {
        parsed.here[key] = choice_from(value);
        parsed.unread.erase(key);
      } catch (const std::exception&) {
        parsed.unread[key] = value;
        parsed.here.erase(key);
      }
    }
  }
  return parsed;
}

std::optional<std::string> read_if_present(const std::filesystem::path& file) {
  std::error_code error;
  const auto status = std::filesystem::symlink_status(file, error);
  if (error || !std::filesystem::exists(status)) {
    // A dangling link is a file to be created through it, as for every output.
    return std::nullopt;
  }
  if (std::filesystem::is_symlink(status) && !std::filesystem::exists(file, error))
    return std::nullopt;
  return read_regular_file(file.string(), kMaxWisdomBytes);
}

// Reads `file` into the store (the caller holds the lock); warns and reads nothing when it is not
// usable wisdom for this host.
int load_locked(Store& s, const std::filesystem::path& file) {
  s.settled = true;
  s.choices.clear();
  s.unread = json::object();
  s.others.clear();
  s.changed.clear();
  s.changed_others.clear();
  if (file.empty()) return 0;
  std::string reason;
  try {
    const std::optional<std::string> text = read_if_present(file);
    if (!text) return 0;
    Parsed parsed = parse_wisdom(*text, s.here);
    s.others = std::move(parsed.others);
    s.unread = std::move(parsed.unread);
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
  s.changed[key.text()] = choice;
  s.unread.erase(key.text());
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

namespace {

std::string export_locked(const Store& s) {
  json hosts = json::array();
  json here = s.unread;
  for (const auto& [key, choice] : s.choices) here[key] = choice_json(choice);
  if (!here.empty()) hosts.push_back(json{{"host", s.here}, {"choices", here}});
  for (const auto& [host, choices] : s.others)
    hosts.push_back(json{{"host", host}, {"choices", choices}});
  return json{{"tessera_wisdom", kFormat}, {"hosts", hosts}}.dump(2) + "\n";
}

// Holds an exclusive lock on a wisdom file's folder while it is read, merged and replaced, so that
// two `tessera tune` runs on one file each keep the other's results. The folder is locked rather
// than the file because the file is replaced by a rename, and a lock on a file of its own would
// leave that file behind.
class FolderLock {
 public:
  explicit FolderLock(const std::filesystem::path& file) {
    const std::filesystem::path folder =
        file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
    descriptor_ = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (descriptor_ < 0) throw file_error("write", shown(file), errno);
    while (::flock(descriptor_, LOCK_EX) != 0) {
      if (errno == EINTR) continue;
      const int why = errno;
      ::close(descriptor_);
      throw file_error("lock the folder of", shown(file), why);
    }
  }
  ~FolderLock() { ::close(descriptor_); }  // closing releases the lock
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  int descriptor_ = -1;
};

// The wisdom `file` holds now, or nothing when there is no file; throws Error(kIo) when it cannot
// be read or is not wisdom: tessera replaces only a file it could have written.
std::optional<Parsed> current_wisdom(const std::filesystem::path& file, const json& here) {
  const std::optional<std::string> text = read_if_present(file);
  if (!text) return std::nullopt;
  try {
    return parse_wisdom(*text, here);
  } catch (const Error& e) {
    throw Error(ErrorKind::kIo,
                fmt::format("cannot write wisdom to '{}': it is not tessera wisdom ({}), and "
                            "tessera replaces only a wisdom file",
                            shown(file), e.message()));
  }
}

void create_folder_of(const std::filesystem::path& file) {
  std::error_code error;
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), error);
  if (error) throw file_error("create the folder of", shown(file), error.value());
}

}  // namespace

std::string export_wisdom() {
  Store& s = store();
  std::lock_guard lock(s.mutex);
  settle_locked(s);
  return export_locked(s);
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
  for (auto& [key, choice] : parsed.here) {
    s.choices[key] = choice;
    s.changed[key] = choice;
    s.unread.erase(key);
  }
  for (const auto& [key, value] : parsed.unread.items()) {
    if (!s.choices.contains(key)) s.unread[key] = value;
  }
  merge_kept(s.others, parsed.others);
  merge_kept(s.changed_others, parsed.others);
  return static_cast<int>(parsed.here.size());
}

void check_wisdom_file(const std::filesystem::path& file) {
  create_folder_of(file);
  const FolderLock lock(file);
  Store& s = store();
  json here;
  {
    std::lock_guard guard(s.mutex);
    here = s.here;
  }
  // A device, a FIFO, a folder, no room: refused as every output is; the probe is not committed.
  const io::AtomicFile probe(file.string());
  current_wisdom(file, here);
}

void save_wisdom(const std::filesystem::path& file) {
  create_folder_of(file);
  const FolderLock lock(file);
  io::AtomicFile out(file.string());  // refuses what is not an output first: a device, a FIFO
  Store& s = store();
  std::lock_guard guard(s.mutex);
  settle_locked(s);
  // What another run wrote since this one read the file wins over what this one read; what this
  // one measured or imported wins over both.
  if (std::optional<Parsed> now = current_wisdom(file, s.here)) {
    for (auto& [key, choice] : now->here) s.choices[key] = std::move(choice);
    for (const auto& [key, value] : now->unread.items()) {
      s.unread[key] = value;
      s.choices.erase(key);
    }
    merge_kept(s.others, now->others);
  }
  for (const auto& [key, choice] : s.changed) {
    s.choices[key] = choice;
    s.unread.erase(key);
  }
  merge_kept(s.others, s.changed_others);
  out.write(export_locked(s));
  out.commit();
}

void forget_wisdom() {
  Store& s = store();
  std::lock_guard lock(s.mutex);
  s.settled = true;
  s.choices.clear();
  s.unread = json::object();
  s.others.clear();
  s.changed.clear();
  s.changed_others.clear();
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
