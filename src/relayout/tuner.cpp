#include "relayout/tuner.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <time.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <random>
#include <span>
#include <vector>

#include "relayout/cache_size.h"
#include "relayout/host_profile.h"
#include "relayout/plan_choices.h"
#include "relayout/plan_internals.h"
#include "relayout/size_class.h"
#include "relayout/worker_pool.h"
#include "tessera/error.h"
#include "tessera/relayout/layout_operand.h"
#include "tessera/relayout/relayout_plan.h"
#include "tessera/relayout/streaming_copy.h"
#include "tessera/utf8_text.h"

namespace tessera::relayout {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Huge-page backed, pre-faulted memory for the proxies (first touch of fresh memory runs at a
// fraction of the copy speed, and 4 KiB pages add page walks: neither is what is being measured).
class ProxyMemory {
 public:
  std::byte* get(int64_t bytes) {
    if (bytes > size_) {
      data_.reset();
      constexpr int64_t kHuge = int64_t{2} << 20;
      const int64_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
      void* p =
          std::aligned_alloc(static_cast<std::size_t>(kHuge), static_cast<std::size_t>(rounded));
      if (p == nullptr) throw std::bad_alloc();
      data_.reset(static_cast<std::byte*>(p));
      advise_huge_pages(p, rounded);
      std::memset(p, 1, static_cast<std::size_t>(rounded));
      size_ = rounded;
    }
    return data_.get();
  }

 private:
  struct Free {
    void operator()(std::byte* p) const { std::free(p); }
  };
  std::unique_ptr<std::byte, Free> data_;
  int64_t size_ = 0;
};

struct Arena {
  ProxyMemory source, destination;
};

// A candidate's speed is its median try (the lower one of an even count), in busy seconds
// (Trial::Timed): CPU time leaves out the slices the scheduler gives to other processes, which
// made wall-clock medians measure the neighbours (docs/notes/2026-11-27-host-rules.md). The
// median, not the fastest try, because the tries of one variant are not alike even on a quiet
// host: some variants of the 48 MiB transpose proxy ran slow in half their tries, others rarely,
// and the fastest try of many favoured the variant tried most
// (docs/notes/2026-11-28-tune-close-calls.md). The copy run next to each try keeps the
// machine's state (memory traffic, frequency) alike for every candidate; the ratio reported is
// the median copy over the median try.
double median_of(std::vector<double> values) {
  if (values.empty()) return 0.0;
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>((values.size() - 1) / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

struct Candidate {
  std::string name;
  KernelVariant variant;
  RelayoutPlan plan;
  std::vector<double> seconds;  // one per try
  double typical() const { return median_of(seconds); }
};

// One proxy problem's measurement: its plans, buffers and baseline.
class Trial {
 public:
  Trial(const ProblemKey& key, const LayoutOperand& from, const LayoutOperand& to, Arena& arena)
      : threads_(key.threads),
        source_bytes_(from.map->size_bytes()),
        destination_bytes_(to.map->size_bytes()),
        source_(arena.source.get(source_bytes_)),
        destination_(arena.destination.get(std::max(source_bytes_, destination_bytes_))),
        rng_(std::random_device{}()) {}

  // The copy of the source's bytes on the same threads, and the candidate, in a random order.
  void time(Candidate& c) {
    if (rng_() % 2 == 0) {
      copies_.push_back(time_copy().busy);
      c.seconds.push_back(time_plan(c.plan).busy);
    } else {
      c.seconds.push_back(time_plan(c.plan).busy);
      copies_.push_back(time_copy().busy);
    }
    ++tries_;
  }

  // A first, untimed run of the copy and of `c` (pages, caches, the pool's threads), then its
  // first try; returns that try's seconds (a copy and a run of `c`).
  double warm_up(Candidate& c) {
    time_copy();
    time_plan(c.plan);
    const auto start = Clock::now();
    time(c);
    return seconds_since(start);
  }

  // A candidate's speed as a ratio to the copy's (both medians).
  double ratio(const Candidate& c) const {
    return c.seconds.empty() ? 0 : median_of(copies_) / c.typical();
  }

  std::mt19937& rng() { return rng_; }
  int tries() const { return tries_; }

 private:
  // A run's wall-clock seconds, and its busy seconds: the CPU time its threads took, per thread.
  // On a shared host the scheduler hands the cores to other processes in slices of milliseconds,
  // which wall-clock time counts and CPU time does not; a kernel that waits on memory is busy.
  struct Timed {
    double seconds;
    double busy;
  };

  template <class F>
  Timed timed(F&& run) {
    timespec cpu0{};
    timespec cpu1{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu0);
    const auto start = Clock::now();
    run();
    const double wall = seconds_since(start);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu1);
    const double cpu = static_cast<double>(cpu1.tv_sec - cpu0.tv_sec) +
                       1e-9 * static_cast<double>(cpu1.tv_nsec - cpu0.tv_nsec);
    return {wall, std::min(wall, cpu / threads_)};
  }

  Timed time_copy() {
    constexpr int64_t kPiece = int64_t{1} << 20;
    const int64_t pieces = (source_bytes_ + kPiece - 1) / kPiece;
    return timed([&] {
      for_each_piece(threads_ - 1, pieces, [&](int64_t i) {
        const int64_t begin = i * kPiece;
        const int64_t end = std::min(source_bytes_, begin + kPiece);
        streaming_copy(destination_ + begin, source_ + begin,
                       static_cast<std::size_t>(end - begin));
      });
    });
  }

  Timed time_plan(const RelayoutPlan& plan) {
    return timed([&] {
      plan.execute(
          {source_, static_cast<std::size_t>(source_bytes_)},
          {destination_, static_cast<std::size_t>(std::max(source_bytes_, destination_bytes_))});
    });
  }

  int threads_;
  int64_t source_bytes_, destination_bytes_;
  std::byte* source_;
  std::byte* destination_;
  std::mt19937 rng_;
  int tries_ = 0;
  std::vector<double> copies_;  // one per try
};

struct Measured {
  ProblemKey key;  // what the proxy measured: the key asked for, with the proxy's own pitch
  WisdomChoice choice;
  std::string model;
  std::string fastest;
  double fastest_ratio = 0;
  std::string why;
};

// Tries a job's schedule takes for `n` candidates beyond its first pass.
int64_t refining_tries(std::size_t n) {
  return static_cast<int64_t>(n + std::max<std::size_t>(3, (n + 2) / 3) + 3 * 5);
}

bool is_runs_class(KernelClass k) {
  return k == KernelClass::kRuns || k == KernelClass::kRunsTile || k == KernelClass::kRunsSpread;
}

// One problem class measured on its proxy: every candidate once (first_pass), then, in the time
// it is given, every candidate again, the best third (at least 3) again and the best two five
// times (patient: the best half, the best three nine times). The model's variant always goes on,
// and stays the choice unless another is more than 1% faster (and faster in its median).
class Job {
 public:
  Job(const ProblemKey& key, int64_t proxy_bytes) : key_(key) {
    const auto layouts = proxy_layouts(key, proxy_bytes);
    if (!layouts) return;
    from_ = parse_layout_operand(layouts->first);
    to_ = parse_layout_operand(layouts->second);
    for (const KernelVariant& v : candidate_variants(key.kernel_class)) {
      // Candidates are values from here to the kernels: no name is parsed back.
      RelayoutPlan p = plan_candidate(*from_.map, *to_.map, key.threads, {key.kernel_class, v});
      if (candidates_.empty() && main_kernel_class(p) != key.kernel_class) return;
      candidates_.push_back({variant_name(key.kernel_class, v), v, std::move(p), {}});
    }
    // The proxy's own row pitch class: a "page" proxy of tiles may read as "line".
    key_.pitch = main_pitch(candidates_[0].plan);
  }

  bool valid() const { return !candidates_.empty(); }
  const ProblemKey& key() const { return key_; }
  int64_t source_bytes() const { return from_.map->size_bytes(); }
  int64_t destination_bytes() const {
    return std::max(from_.map->size_bytes(), to_.map->size_bytes());
  }

  // Times every candidate once; false when `deadline` came first.
  bool first_pass(Arena& arena, Clock::time_point deadline) {
    if (Clock::now() >= deadline) return false;
    trial_.emplace(key_, from_, to_, arena);
    per_try_ = trial_->warm_up(candidates_[0]);
    std::vector<Candidate*> rest = all();
    rest.erase(rest.begin());
    return round(rest, 1, deadline) && measured();
  }

  bool measured() const {
    return valid() && std::all_of(candidates_.begin(), candidates_.end(),
                                  [](const Candidate& c) { return !c.seconds.empty(); });
  }

  // What refining would take, in seconds, weighted by how much the candidates differ: classes
  // whose variants differ most (the transposes) lose most by a wrong choice.
  double weight() const {
    if (!measured()) return 0;
    double fastest = 1e30;
    double slowest = 0;
    for (const Candidate& c : candidates_) {
      fastest = std::min(fastest, c.typical());
      slowest = std::max(slowest, c.typical());
    }
    const double spread = std::min(2.0, slowest / std::max(fastest, 1e-12) - 1);
    return per_try_ * static_cast<double>(refining_tries(candidates_.size())) * (1 + spread);
  }

  void refine(PlannerMode mode, Clock::time_point deadline) {
    if (!measured()) return;
    const std::size_t n = candidates_.size();
    const double budget =
        std::chrono::duration<double>(deadline - Clock::now()).count() / std::max(per_try_, 1e-6);
    const bool patient = mode == PlannerMode::kPatient;
    if (budget >= static_cast<double>(refining_tries(n)) && !round(all(), 1, deadline)) return;
    if (round(best(std::max<std::size_t>(3, patient ? (n + 1) / 2 : (n + 2) / 3)), 1, deadline)) {
      round(best(patient ? 3 : 2), patient ? 9 : 5, deadline);
    }
  }

  // Whether the fastest two candidates are within `margin` of each other (median tries): a close
  // call that the few tries of refine() decide by chance.
  bool close_call(double margin) const {
    if (!measured() || candidates_.size() < 2) return false;
    double first = 1e30;
    double second = 1e30;
    for (const Candidate& c : candidates_) {
      const double t = c.typical();
      if (t < first) {
        second = first;
        first = t;
      } else if (t < second) {
        second = t;
      }
    }
    return second <= first * (1 + margin);
  }

  // One more round of the best three (and the model); false when `deadline` came first.
  bool settle(Clock::time_point deadline) { return round(best(3), 1, deadline); }

  std::optional<Measured> result(PlannerMode mode) const {
    if (!measured()) return std::nullopt;
    const std::size_t n = candidates_.size();
    const Candidate* fastest = &candidates_[0];
    for (const Candidate& c : candidates_) {
      if (c.typical() < fastest->typical()) fastest = &c;
    }
    const Candidate& model = candidates_[0];
    // Another variant must be more than 1% faster in its median try (busy time: the slices a
    // loaded host gives to other processes do not count; tests/relayout/tuner_test.cpp).
    const bool keep_model = fastest->typical() >= 0.99 * model.typical();
    const Candidate& chosen = keep_model ? model : *fastest;
    const Trial& trial = *trial_;
    Measured m;
    m.key = key_;
    m.choice.variant = recorded_name(chosen);
    m.choice.measured = today_utc();
    m.choice.mode =
        planner_mode_name(mode == PlannerMode::kEstimate ? PlannerMode::kMeasure : mode);
    m.choice.ratio = trial.ratio(chosen);
    m.choice.model_ratio = trial.ratio(model);
    m.choice.variants = static_cast<int>(n);
    m.choice.tries = trial.tries();
    m.model = model.name;
    m.fastest = recorded_name(*fastest);
    m.fastest_ratio = trial.ratio(*fastest);
    if (keep_model && fastest != &model) {
      m.why = fmt::format(
          "the model's pick: {:.2f}x a plain copy's speed, within 1% of the fastest of {} ({} "
          "{:.2f}x)",
          trial.ratio(model), n, fastest->name, trial.ratio(*fastest));
    } else if (keep_model) {
      m.why = fmt::format("the model's pick: the fastest of {} ({:.2f}x a plain copy's speed)", n,
                          trial.ratio(model));
    } else {
      m.why =
          fmt::format("the fastest of {}: {:.2f}x a plain copy's speed (the model's pick: {:.2f}x)",
                      n, trial.ratio(chosen), trial.ratio(model));
    }
    return m;
  }

 private:
  std::vector<Candidate*> all() {
    std::vector<Candidate*> out;
    for (Candidate& c : candidates_) out.push_back(&c);
    return out;
  }

  std::vector<Candidate*> best(std::size_t count) {
    std::vector<Candidate*> order;
    for (Candidate& c : candidates_) {
      if (!c.seconds.empty()) order.push_back(&c);
    }
    std::stable_sort(order.begin(), order.end(), [](const Candidate* a, const Candidate* b) {
      return a->typical() < b->typical();
    });
    order.resize(std::min(count, order.size()));
    if (std::find(order.begin(), order.end(), &candidates_[0]) == order.end())
      order.push_back(&candidates_[0]);
    return order;
  }

  bool round(std::vector<Candidate*> chosen, int repeats, Clock::time_point deadline) {
    for (int r = 0; r < repeats; ++r) {
      std::shuffle(chosen.begin(), chosen.end(), trial_->rng());
      for (Candidate* c : chosen) {
        if (Clock::now() >= deadline) return false;
        trial_->time(*c);
      }
    }
    return true;
  }

  // The name wisdom keeps: a runs variant's `auto` store is what the size rule made of it on the
  // proxy (plain or stream), so that the planner repeats what was measured at any size of the
  // class instead of applying the rule again.
  std::string recorded_name(const Candidate& c) const {
    if (!is_runs_class(key_.kernel_class) || c.variant.store != StoreMode::kAuto) return c.name;
    KernelVariant v = c.variant;
    v.store = main_streams(c.plan) ? StoreMode::kStream : StoreMode::kPlain;
    return variant_name(key_.kernel_class, v);
  }

  ProblemKey key_;
  LayoutOperand from_, to_;
  std::vector<Candidate> candidates_;
  std::optional<Trial> trial_;
  double per_try_ = 0;
};

// A planner measuring on behalf of a plan (measure mode) builds its candidates' plans in
// estimate mode (plan_candidate); this guards that bound: a measurement never starts another.
thread_local bool measuring = false;

class MeasuringScope {
 public:
  MeasuringScope() { measuring = true; }
  ~MeasuringScope() { measuring = false; }
  MeasuringScope(const MeasuringScope&) = delete;
  MeasuringScope& operator=(const MeasuringScope&) = delete;
};

std::optional<Measured> record(const Job& job, PlannerMode mode) {
  std::optional<Measured> m = job.result(mode);
  if (m) record_wisdom(m->key, m->choice);
  return m;
}

// Transposes first: their variants differ most, so they are timed before the time can run out.
int measuring_order(KernelClass k) {
  switch (k) {
    case KernelClass::kTranspose:
      return 0;
    case KernelClass::kTileTranspose:
    case KernelClass::kTileGather:
      return 1;
    default:
      return 2;
  }
}

std::string describe_job(const ProblemKey& key) {
  return fmt::format("{} {}{}, {} thread{}, {}", kernel_class_name(key.kernel_class),
                     proxy_element_type(key.element_bytes),
                     key.pitch == "wide" ? ", rows 64 KiB apart" : "", key.threads,
                     key.threads == 1 ? "" : "s",
                     key.size == SizeClass::kCache ? "in cache" : "from memory");
}

// Whether some plans of `key`'s class and size class read wisdom: outputs of at least 4 MiB
// (plan_choices.h) below the size class's end (as the packed bits of a small proxy are not).
bool reads_wisdom(const ProblemKey& key) {
  const int64_t largest =
      key.size == SizeClass::kCache ? size_class_boundary() - 1 : default_proxy_bytes(key.size);
  const auto layouts = proxy_layouts(key, largest);
  return layouts && parse_layout_operand(layouts->second).map->size_bytes() >= kWisdomBytes;
}

Clock::time_point after(double seconds) {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

}  // namespace

bool measure_problem(const ProblemKey& key, PlannerMode mode, Clock::time_point deadline) {
  if (measuring) return false;
  const MeasuringScope scope;
  Job job(key, default_proxy_bytes(key.size));
  if (!job.valid()) return false;
  Arena arena;
  if (!job.first_pass(arena, deadline)) return false;
  job.refine(mode, deadline);
  return record(job, mode).has_value();
}

std::vector<std::string> kernel_class_names() {
  std::vector<std::string> names;
  for (const KernelClass k : tuned_classes()) names.emplace_back(kernel_class_name(k));
  return names;
}

std::vector<std::string> variant_names(std::string_view kernel_class) {
  const KernelClass k = kernel_class_named(kernel_class);
  if (k == KernelClass::kNone) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("'{}' is not a kernel class: one of {}", printable_utf8(kernel_class),
                            fmt::join(kernel_class_names(), ", ")));
  }
  std::vector<std::string> names;
  for (const KernelVariant& v : candidate_variants(k)) names.push_back(variant_name(k, v));
  return names;
}

TuneReport tune(const TuneOptions& options) {
  const auto start = Clock::now();
  std::vector<KernelClass> classes;
  for (const std::string& name : options.classes) {
    variant_names(name);  // refuses an unknown class
    classes.push_back(kernel_class_named(name));
  }
  if (classes.empty()) classes = tuned_classes();
  std::stable_sort(classes.begin(), classes.end(), [](KernelClass a, KernelClass b) {
    return measuring_order(a) < measuring_order(b);
  });
  std::vector<int> threads = options.threads;
  for (const int t : threads) {
    if (t < 1) {
      throw Error(ErrorKind::kArgument, fmt::format("cannot tune for {} threads: at least 1", t));
    }
  }
  if (threads.empty()) threads = {1, host_facts().threads};
  std::sort(threads.begin(), threads.end());
  threads.erase(std::unique(threads.begin(), threads.end()), threads.end());
  const auto proxy_size = [&](SizeClass size) {
    const int64_t given =
        size == SizeClass::kCache ? options.cache_proxy_bytes : options.memory_proxy_bytes;
    return given > 0 ? given : default_proxy_bytes(size);
  };
  std::vector<Job> jobs;
  for (const KernelClass k : classes) {
    std::vector<int> sizes = {4};
    if (k == KernelClass::kInterleave) sizes = {2, 1};
    if (k == KernelClass::kDeinterleave) sizes = {2};
    if (k == KernelClass::kPackBits) sizes = {1};
    // Plain transposes of rows 32 KiB and more apart are a pitch class of their own
    // (plan_classes.h).
    std::vector<const char*> pitches = {"page"};
    if (k == KernelClass::kTranspose) pitches.push_back("wide");
    for (const int bytes : sizes) {
      for (const char* pitch : pitches) {
        for (const SizeClass size : {SizeClass::kMemory, SizeClass::kCache}) {
          const ProblemKey key{k, bytes, pitch, 1, size};
          // A size class where this class's problems never read wisdom (outputs below 4 MiB, as
          // the packed bits of a cache-sized proxy) is not measured.
          if (!reads_wisdom(key)) continue;
          for (const int t : threads) {
            ProblemKey at = key;
            at.threads = t;
            jobs.emplace_back(at, proxy_size(size));
            if (!jobs.back().valid()) jobs.pop_back();
          }
        }
      }
    }
  }
  const PlannerMode mode =
      options.mode == PlannerMode::kPatient ? PlannerMode::kPatient : PlannerMode::kMeasure;
  const double cap =
      options.seconds > 0 ? options.seconds : planner_mode_info(mode).default_tune_seconds;
  TuneReport report;
  report.budget = cap;
  Arena arena;
  // The largest proxy's buffers, first touched before any job's time starts.
  int64_t largest_source = 0;
  int64_t largest_destination = 0;
  for (const Job& job : jobs) {
    largest_source = std::max(largest_source, job.source_bytes());
    largest_destination = std::max(largest_destination, job.destination_bytes());
  }
  arena.source.get(largest_source);
  arena.destination.get(largest_destination);
  const auto deadline =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(cap));
  const auto progress = [&](std::size_t j, const char* phase) {
    if (options.progress) {
      options.progress({static_cast<int>(j) + 1, static_cast<int>(jobs.size()),
                        describe_job(jobs[j].key()) + phase});
    }
  };
  // Every candidate of every class once, transposes first; then what is left of the time shared
  // by how much each class's candidates differed and how long its tries take.
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    progress(j, "");
    jobs[j].first_pass(arena, deadline);
  }
  double weight_left = 0;
  for (const Job& job : jobs) weight_left += job.weight();
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const double weight = jobs[j].weight();
    if (weight <= 0) continue;
    progress(j, ", again");
    const double left = std::chrono::duration<double>(deadline - Clock::now()).count();
    const double share = std::max(0.0, left) * weight / std::max(weight_left, 1e-12);
    weight_left -= weight;
    jobs[j].refine(mode, std::min(deadline, after(share)));
  }
  // What time is left goes to close calls, a round of each in turn (transposes first), at most
  // kSettleRounds each, so that a generous budget is not spent on classes already clear. On a
  // shared 2-vCPU host the 48 MiB transpose proxy's leader changed between tunes without this
  // (docs/notes/2026-11-28-tune-close-calls.md).
  constexpr int kSettleRounds = 8;
  constexpr double kCloseCall = 0.05;
  for (int r = 0; r < kSettleRounds && Clock::now() < deadline; ++r) {
    bool any = false;
    for (Job& job : jobs) {
      if (!job.close_call(kCloseCall)) continue;
      any = true;
      if (!job.settle(deadline)) break;
    }
    if (!any) break;
  }
  for (const Job& job : jobs) {
    const ProblemKey& key = job.key();
    std::optional<Measured> m = record(job, mode);
    if (!m) {
      report.choices.push_back({key.text(), "",
                                variant_name(key.kernel_class, model_variant(key.kernel_class)), "",
                                0, 0, 0, 0, 0, "not measured: out of time"});
      continue;
    }
    report.choices.push_back({m->key.text(), m->choice.variant, m->model, m->fastest,
                              m->choice.ratio, m->choice.model_ratio, m->fastest_ratio,
                              m->choice.variants, m->choice.tries, m->why});
  }
  report.seconds = seconds_since(start);
  return report;
}

void require_every_problem_measured(const TuneReport& report) {
  std::vector<std::string> missing;
  for (const TuneChoice& c : report.choices) {
    if (c.variant.empty()) missing.push_back(c.problem);
  }
  if (missing.empty()) return;
  throw Error(
      ErrorKind::kArgument,
      fmt::format("tune measured {} of {} problem classes within its {:g} s; not measured (out "
                  "of time before each candidate was timed once): {}; give it more time",
                  report.choices.size() - missing.size(), report.choices.size(), report.budget,
                  fmt::join(missing, ", ")));
}

}  // namespace tessera::relayout
