// How the relayout engine chooses among kernel variants that write the same bytes at different
// speeds on different hosts (the walk over runs, the rows a transpose reads at a time, where its
// prefetches go, how it stores, which SIMD code runs, ...), in the manner of FFTW's planner:
//
//   estimate  the default: the wisdom measured on this host if there is some, else a model (the
//             kernels' defaults and a few per-family priors); never times anything.
//   measure   wisdom if present, else times the candidates of each kernel class the plan needs on
//             a proxy of the plan's size class, each try as a ratio to a copy in the same run
//             (all once, the best few again, the best two five times), 2 s at most.
//   patient   the same with a longer cap (20 s), re-measuring what `measure` found.
//
// Wisdom is a JSON file, by default $XDG_CACHE_HOME/tessera/wisdom.json (~/.cache/tessera/...),
// keyed by a fingerprint of this host (CPU vendor, family and model, caches, SIMD targets, huge
// page mode, threads, this build) and by problem class (kernel class, element size, row pitch,
// size class, threads: "transpose/4B/page/memory/t1"). Where wisdom exists it decides: no rule
// about cache sizes or CPU families overrides a measurement. Problems are told apart by size
// ("cache": what is written may stay in the caches; "memory": larger), since the best variant
// can change with it; each size class is measured on a proxy of its own size, which the caches
// this host reports only hint at. `tessera tune` (or tune() below) measures every class and
// writes it:
//
//   relayout::TuneReport report = relayout::tune({});   // at most 10 s, 1 and all threads
//   relayout::require_every_problem_measured(report);   // throws when time ran out first
//   relayout::save_wisdom(relayout::default_wisdom_path());
//   relayout::plan(from, to, {}).describe();  // "... variant staged-r32-l1-g2048-avx3, measured
//                                             //  2026-11-27 on this host"
//
// Wisdom never changes what a conversion writes, only how fast; a corrupt file, or one written on
// another host or by another build, is ignored with a warning.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::relayout {

enum class PlannerMode { kEstimate, kMeasure, kPatient };

// The planner modes, one record each, in order: their names, what they do and how long they may
// time (the CLI's choices and help, and the docs, come from here).
struct PlannerModeInfo {
  PlannerMode mode;
  const char* name;             // "estimate"
  double default_seconds;       // a plan's cap on timing (0: never times)
  double default_tune_seconds;  // `tessera tune`'s cap in this mode (0: not a tune mode)
  const char* description;
};
std::span<const PlannerModeInfo> planner_modes();

// "estimate", "measure" or "patient"; throws Error(kInvalid) naming the three otherwise.
PlannerMode parse_planner_mode(std::string_view text);
const char* planner_mode_name(PlannerMode mode);
const PlannerModeInfo& planner_mode_info(PlannerMode mode);

// Where warnings about wisdom files go (a corrupt or foreign file: "ignoring wisdom file 'F': WHY",
// valid UTF-8). By default "warning: ..." on stderr. Returns the handler it replaces.
using WarningHandler = std::function<void(const std::string& message)>;
WarningHandler set_warning_handler(WarningHandler handler);

// The file plans read wisdom from unless told otherwise: $TESSERA_WISDOM when set (an empty value
// reads none), else $XDG_CACHE_HOME/tessera/wisdom.json when XDG_CACHE_HOME is set and absolute,
// else $HOME/.cache/tessera/wisdom.json; empty when there is no such place.
std::filesystem::path default_wisdom_path();

// Replaces the process's wisdom with what `file` holds for this host (read at once; plans made
// afterwards use it). Returns how many choices it had for this host. A missing file reads as
// none; one that is not wisdom, or holds none for this host and build, warns and reads as none.
int use_wisdom_file(const std::filesystem::path& file);

// The wisdom as JSON text: this host's choices and those kept from other hosts' files.
std::string export_wisdom();
// Merges wisdom exported elsewhere (`origin` names it in errors): this host's choices replace the
// same problems' ones here; other hosts' are kept for export. Returns how many choices apply to
// this host. Throws Error(kSyntax) when `json` is not tessera wisdom.
int import_wisdom(std::string_view json, std::string_view origin);
// Writes the wisdom to `file` (its folder created) as every output is written (a temporary file
// renamed into place, through symbolic links, permissions kept, devices and FIFOs refused),
// merged under a lock on its folder with what `file` holds by then: entries this process recorded
// or imported win, every other entry of the file is kept, whoever's it is. Throws Error(kIo)
// naming the file, also when `file` exists and is not wisdom (it is never replaced).
void save_wisdom(const std::filesystem::path& file);
// Throws the error save_wisdom(file) would throw for the file as it is now, without writing:
// `tessera tune` asks before it spends seconds measuring.
void check_wisdom_file(const std::filesystem::path& file);
// Drops every choice: plans use the model until wisdom is read again.
void forget_wisdom();

// One line about this host: "AMD EPYC (AuthenticAMD family 0x1a model 0x2), L2 1 MiB, L3 32 MiB,
// SIMD AVX3_ZEN4 AVX3 AVX2 ..., huge pages madvise, 2 threads".
std::string host_description();

struct TuneProgress {
  int job = 0;  // 1-based
  int jobs = 0;
  std::string what;  // "transpose f32, 2 threads"
};

struct TuneOptions {
  PlannerMode mode = PlannerMode::kMeasure;  // kPatient gives each class longer
  double seconds = 0;                        // the whole run's cap; 0: 10 s (patient: 60 s)
  std::vector<int> threads;                  // thread counts to tune; empty: 1 and all cores
  std::vector<std::string> classes;  // kernel classes; empty: all ("runs", "transpose", ...)
  // Bytes of source of the proxies measured for each size class; 0: this host's (a quarter of
  // the last-level cache it reports, and one and a half times it, within bounds). Smaller
  // proxies measure faster and stand for their class all the same (tests).
  int64_t cache_proxy_bytes = 0;
  int64_t memory_proxy_bytes = 0;
  std::function<void(const TuneProgress&)> progress;
};

struct TuneChoice {
  std::string problem;        // the wisdom key: "transpose/4B/page/memory/t2"
  std::string variant;        // the chosen one; "" when time ran out first (nothing recorded)
  std::string model_variant;  // estimate's choice without wisdom
  std::string fastest;        // the candidate measured fastest (the choice unless the model
                              // was within 1% of it)
  double ratio = 0;           // the median copy in the same run over the variant's median try
  double model_ratio = 0;
  double fastest_ratio = 0;
  int variants = 0;  // candidates tried
  int tries = 0;     // timed runs of candidates
  std::string why;   // "fastest of 17 (0.84 of a copy against the model's 0.80)"
};

struct TuneReport {
  std::vector<TuneChoice> choices;
  double seconds = 0;
  double budget = 0;  // the cap it had
};

// Measures the candidates of every kernel class (or options.classes) in each size class, at each
// thread count, and records the choices in the process's wisdom (save_wisdom writes them): every
// candidate of every class once first, transposes first, then the time left shared by how much
// each class's candidates differed. Throws Error(kInvalid) for an unknown class name and
// Error(kArgument) for a thread count below 1.
TuneReport tune(const TuneOptions& options);

// Throws Error(kArgument) naming the problem classes `report` left unmeasured (its time ran out
// before each of their candidates was timed once): a tune that did not measure every class failed.
void require_every_problem_measured(const TuneReport& report);

// The kernel classes tune() knows, and the names of the variants it measures for one of them
// (the model's first). Throws Error(kInvalid) for an unknown class.
std::vector<std::string> kernel_class_names();
std::vector<std::string> variant_names(std::string_view kernel_class);

// The tokens variant names are made of (joined by '-'), one group per parameter: what
// `tessera tune --list` prints and the docs' table shows. "best" stands for the best SIMD target,
// which its own name (e.g. "avx3") also gives.
struct VariantTokenGroup {
  std::string parameter;            // "rows"
  std::vector<std::string> tokens;  // "r16", "r32", ...
  std::string meaning;
};
std::vector<VariantTokenGroup> variant_tokens();

}  // namespace tessera::relayout
