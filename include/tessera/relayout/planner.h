// How the relayout engine chooses among kernel variants that write the same bytes at different
// speeds on different hosts (the walk over runs, the rows a transpose reads at a time, where its
// prefetches go, how it stores, which SIMD code runs, ...), in the manner of FFTW's planner:
//
//   estimate  the default: the wisdom measured on this host if there is some, else a model (the
//             kernels' defaults and a few per-family priors); never times anything.
//   measure   wisdom if present, else times the candidates of each kernel class the plan needs on
//             a proxy larger than the last-level cache, each try as a ratio to a copy in the same
//             run (all once, the best few again, the best two five times), 2 s at most.
//   patient   the same with a longer cap (20 s), re-measuring what `measure` found.
//
// Wisdom is a JSON file, by default $XDG_CACHE_HOME/tessera/wisdom.json (~/.cache/tessera/...),
// keyed by a fingerprint of this host (CPU vendor, family and model, caches, SIMD targets, huge
// page mode, threads, this build) and by problem class (kernel class, element size, row pitch,
// threads). `tessera tune` (or tune() below) measures every class and writes it:
//
//   relayout::TuneReport report = relayout::tune({});   // about 8 s, 1 and all threads
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
#include <string>
#include <string_view>
#include <vector>

namespace tessera::relayout {

enum class PlannerMode { kEstimate, kMeasure, kPatient };

// "estimate", "measure" or "patient"; throws Error(kArgument) naming the three otherwise.
PlannerMode parse_planner_mode(std::string_view text);
const char* planner_mode_name(PlannerMode mode);

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
  double seconds = 0;                        // the whole run's cap; 0: 8 s (patient: 60 s)
  std::vector<int> threads;                  // thread counts to tune; empty: 1 and all cores
  std::vector<std::string> classes;  // kernel classes; empty: all ("runs", "transpose", ...)
  std::function<void(const TuneProgress&)> progress;
};

struct TuneChoice {
  std::string problem;        // the wisdom key: "transpose/4B/page/t2"
  std::string variant;        // the chosen one; "" when time ran out first (nothing recorded)
  std::string model_variant;  // estimate's choice without wisdom
  double ratio = 0;           // median time of a copy in the same run over the variant's time
  double model_ratio = 0;
  int variants = 0;  // candidates tried
  int tries = 0;     // timed runs of candidates
  std::string why;   // "fastest of 17 (0.84 of a copy against the model's 0.80)"
};

struct TuneReport {
  std::vector<TuneChoice> choices;
  double seconds = 0;
};

// Measures the candidates of every kernel class (or options.classes) on proxies of this host's
// sizes and records the choices in the process's wisdom (save_wisdom writes them). Throws
// Error(kArgument) for an unknown class name or a thread count below 1.
TuneReport tune(const TuneOptions& options);

// The kernel classes tune() knows, and the names of the variants it measures for one of them
// (the model's first). Throws Error(kArgument) for an unknown class.
std::vector<std::string> kernel_class_names();
std::vector<std::string> variant_names(std::string_view kernel_class);

}  // namespace tessera::relayout
