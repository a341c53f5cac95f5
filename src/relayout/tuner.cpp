#include "relayout/tuner.h"

#include <fmt/format.h>
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

const char* type_of_bytes(int bytes) {
  return bytes == 1 ? "s8" : bytes == 2 ? "bf16" : bytes == 8 ? "f64" : "f32";
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

// A candidate's speed is its fastest try, in busy seconds (Trial::Timed). On a shared host a try
// is slowed, never sped up, by what else runs: with other builds on both cores, 64 MiB copies
// took 2.5, 6.5 or 10.6 ms of wall-clock time as the scheduler gave the core away in 4 ms slices
// (docs/notes/2026-11-27-host-rules.md), so a median of few tries measured the neighbours. The
// copy run next to each try keeps the machine's state (memory traffic, frequency) alike for every
// candidate; the ratio reported is the fastest copy over the fastest try.
struct Candidate {
  std::string name;
  RelayoutPlan plan;
  std::vector<double> seconds;  // one per try
  double best() const {
    return seconds.empty() ? 0.0 : *std::min_element(seconds.begin(), seconds.end());
  }
  double median() const {
    std::vector<double> s = seconds;
    std::sort(s.begin(), s.end());
    const std::size_t n = s.size();
    return n == 0 ? 0.0 : n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  }
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
      copy_ = std::min(copy_, time_copy().busy);
      c.seconds.push_back(time_plan(c.plan).busy);
    } else {
      c.seconds.push_back(time_plan(c.plan).busy);
      copy_ = std::min(copy_, time_copy().busy);
    }
    ++tries_;
  }

  // Seconds of one try (a copy and a run of `c`), after a first untimed one.
  double warm_up(const Candidate& c) {
    time_copy();
    time_plan(c.plan);
    const auto start = Clock::now();
    copy_ = time_copy().busy;
    time_plan(c.plan);
    return seconds_since(start);
  }

  // A candidate's speed as a ratio to the fastest copy.
  double ratio(const Candidate& c) const { return c.seconds.empty() ? 0 : copy_ / c.best(); }

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
  double copy_ = 1e9;  // the fastest copy so far
};

struct Measured {
  ProblemKey key;  // what the proxy measured: the key asked for, with the proxy's own pitch
  WisdomChoice choice;
  std::string model;
  std::string why;
};

// Tries a job's schedule takes for `n` candidates (tune() shares its time by these).
int64_t planned_tries(std::size_t n) {
  return static_cast<int64_t>(2 * n + std::max<std::size_t>(3, (n + 2) / 3) + 3 * 5);
}

// The schedule: every candidate once (twice where time allows), the best third (at least 3)
// again, the best two five times (patient: the best half, the best three nine times); the
// model's variant always goes on, and stays the choice unless another is more than 1% faster
// (and faster in its median). Stops at `deadline`.
std::optional<Measured> run_schedule(const ProblemKey& key, PlannerMode mode,
                                     Clock::time_point deadline, Arena& arena) {
  const int64_t bytes = proxy_bytes();
  const auto layouts = proxy_layouts(key, bytes);
  if (!layouts || Clock::now() >= deadline) return std::nullopt;
  const LayoutOperand from = parse_layout_operand(layouts->first);
  const LayoutOperand to = parse_layout_operand(layouts->second);
  std::vector<Candidate> candidates;
  for (const KernelVariant& v : candidate_variants(key.kernel_class)) {
    const std::string name = variant_name(key.kernel_class, v);
    RelayoutPlan p = plan(*from.map, *to.map, {.threads = key.threads, .variant = name});
    if (candidates.empty() && main_kernel_class(p) != key.kernel_class) return std::nullopt;
    candidates.push_back({name, std::move(p), {}});
  }
  // The proxy's own row pitch class: a "page" proxy of tiles may read as "line" (plan_classes.h).
  ProblemKey measured = key;
  measured.pitch = main_pitch(candidates[0].plan);
  Trial trial(key, from, to, arena);
  const double per_try = trial.warm_up(candidates[0]);
  const double budget =
      std::chrono::duration<double>(deadline - Clock::now()).count() / std::max(per_try, 1e-6);
  const bool patient = mode == PlannerMode::kPatient;
  const auto round = [&](std::vector<Candidate*> chosen, int repeats) {
    for (int r = 0; r < repeats; ++r) {
      std::shuffle(chosen.begin(), chosen.end(), trial.rng());
      for (Candidate* c : chosen) {
        if (Clock::now() >= deadline) return false;
        trial.time(*c);
      }
    }
    return true;
  };
  const auto best = [&](std::size_t count) {
    std::vector<Candidate*> order;
    for (Candidate& c : candidates) {
      if (!c.seconds.empty()) order.push_back(&c);
    }
    std::stable_sort(order.begin(), order.end(),
                     [](const Candidate* a, const Candidate* b) { return a->best() < b->best(); });
    order.resize(std::min(count, order.size()));
    if (std::find(order.begin(), order.end(), &candidates[0]) == order.end())
      order.push_back(&candidates[0]);
    return order;
  };
  std::vector<Candidate*> all;
  for (Candidate& c : candidates) all.push_back(&c);
  const std::size_t n = candidates.size();
  const int first_passes = budget >= static_cast<double>(planned_tries(n)) ? 2 : 1;
  if (round(all, first_passes) &&
      round(best(std::max<std::size_t>(3, patient ? (n + 1) / 2 : (n + 2) / 3)), 1)) {
    round(best(patient ? 3 : 2), patient ? 9 : 5);
  }
  // Out of time before every candidate was timed once: no choice.
  for (const Candidate& c : candidates) {
    if (c.seconds.empty()) return std::nullopt;
  }
  const Candidate* fastest = &candidates[0];
  for (const Candidate& c : candidates) {
    if (!c.seconds.empty() && c.best() < fastest->best()) fastest = &c;
  }
  const Candidate& model = candidates[0];
  // Another variant must be more than 1% faster at its fastest, and faster in its median too: a
  // lucky try alone does not displace the model.
  const bool keep_model =
      fastest->best() >= 0.99 * model.best() || fastest->median() >= model.median();
  const Candidate& chosen = keep_model ? model : *fastest;
  Measured m;
  m.key = measured;
  m.choice.variant = chosen.name;
  m.choice.measured = today_utc();
  m.choice.mode = planner_mode_name(mode == PlannerMode::kEstimate ? PlannerMode::kMeasure : mode);
  m.choice.ratio = trial.ratio(chosen);
  m.choice.model_ratio = trial.ratio(model);
  m.choice.variants = static_cast<int>(n);
  m.choice.tries = trial.tries();
  m.model = model.name;
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

std::optional<Measured> measure_and_record(const ProblemKey& key, PlannerMode mode,
                                           Clock::time_point deadline, Arena& arena) {
  std::optional<Measured> m = run_schedule(key, mode, deadline, arena);
  if (m) record_wisdom(m->key, m->choice);
  return m;
}

}  // namespace

int64_t proxy_bytes() {
  const int64_t llc = last_level_cache_bytes();
  return std::clamp<int64_t>(llc / 2 * 3, int64_t{48} << 20, int64_t{128} << 20);
}

std::optional<std::pair<std::string, std::string>> proxy_layouts(const ProblemKey& key,
                                                                 int64_t bytes) {
  const int b = key.element_bytes;
  const char* type = type_of_bytes(b);
  // Rows 16 KiB apart ("page"), 16000 bytes ("line") or 16368 bytes ("odd").
  const int64_t row_bytes = key.pitch == "line" ? 16000 : key.pitch == "odd" ? 16368 : 16384;
  const int64_t columns = row_bytes / b;
  const int64_t rows = std::max<int64_t>(128, bytes / row_bytes / 128 * 128);
  const std::string shape = fmt::format("{}[{},{}]", type, rows, columns);
  using Pair = std::pair<std::string, std::string>;
  switch (key.kernel_class) {
    case KernelClass::kRuns:
      return Pair{shape + "{1,0:T(8,128)}", shape + "{1,0}"};
    case KernelClass::kRunsTile:
      return Pair{shape + "{1,0}", shape + "{1,0:T(8,128)}"};
    case KernelClass::kRunsSpread: {
      // f32[N,256,64,64] into the image of 64 NPUs, 2.5 times the data each or more (a BM1684
      // image holds 12.25 MiB of such data in 32 MiB).
      const int64_t n = std::max<int64_t>(1, bytes / 2 / (int64_t{4} << 20));
      int64_t npu = 1 << 20;
      while (2 * npu < 5 * n * (int64_t{64} << 10)) npu *= 2;
      return Pair{fmt::format("f32[{},256,64,64]{{3,2,1,0}}", n),
                  fmt::format("npu:npus=64,lmem={},align=64:{},256,64,64:f32:0:aligned", npu, n)};
    }
    case KernelClass::kTranspose:
      return Pair{shape + "{1,0}", shape + "{0,1}"};
    case KernelClass::kTileTranspose:
      return Pair{shape + "{1,0:T(8,128)}", shape + "{0,1:T(8,128)}"};
    case KernelClass::kTileGather:
      return Pair{shape + "{0,1}", shape + "{1,0:T(8,128)}"};
    case KernelClass::kInterleave:
    case KernelClass::kDeinterleave: {
      const std::string tiled =
          b == 1 ? shape + "{1,0:T(32,128)(4,1)}" : shape + "{1,0:T(8,128)(2,1)}";
      if (b != 1 && b != 2) return std::nullopt;
      return key.kernel_class == KernelClass::kInterleave ? Pair{shape + "{1,0}", tiled}
                                                          : Pair{tiled, shape + "{1,0}"};
    }
    case KernelClass::kPackBits: {
      const std::string bits = fmt::format("pred[{},{}]", rows, row_bytes);
      return Pair{bits + "{1,0}", bits + "{1,0:T(32,128)(32,1)E(1)}"};
    }
    case KernelClass::kNone:
      break;
  }
  return std::nullopt;
}

bool measure_problem(const ProblemKey& key, PlannerMode mode, Clock::time_point deadline) {
  Arena arena;
  return measure_and_record(key, mode, deadline, arena).has_value();
}

std::vector<std::string> kernel_class_names() {
  std::vector<std::string> names;
  for (const KernelClass k : tuned_classes()) names.emplace_back(kernel_class_name(k));
  return names;
}

std::vector<std::string> variant_names(std::string_view kernel_class) {
  const KernelClass k = kernel_class_named(kernel_class);
  if (k == KernelClass::kNone) {
    throw Error(ErrorKind::kArgument,
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
  std::vector<int> threads = options.threads;
  for (const int t : threads) {
    if (t < 1) {
      throw Error(ErrorKind::kArgument, fmt::format("cannot tune for {} threads: at least 1", t));
    }
  }
  if (threads.empty()) threads = {1, host_facts().threads};
  std::sort(threads.begin(), threads.end());
  threads.erase(std::unique(threads.begin(), threads.end()), threads.end());
  std::vector<ProblemKey> jobs;
  for (const KernelClass k : classes) {
    std::vector<int> sizes = {4};
    if (k == KernelClass::kInterleave) sizes = {2, 1};
    if (k == KernelClass::kDeinterleave) sizes = {2};
    if (k == KernelClass::kPackBits) sizes = {1};
    for (const int bytes : sizes) {
      for (const int t : threads) jobs.push_back({k, bytes, "page", t});
    }
  }
  const double cap = options.seconds > 0                     ? options.seconds
                     : options.mode == PlannerMode::kPatient ? 60.0
                                                             : 8.0;
  const PlannerMode mode =
      options.mode == PlannerMode::kPatient ? PlannerMode::kPatient : PlannerMode::kMeasure;
  TuneReport report;
  Arena arena;
  // The largest proxy's buffers, first touched before any job's time starts.
  int64_t largest_source = 0;
  int64_t largest_destination = 0;
  std::vector<int64_t> weights;
  for (const ProblemKey& key : jobs) {
    if (const auto layouts = proxy_layouts(key, proxy_bytes())) {
      const int64_t s = parse_layout_operand(layouts->first).map->size_bytes();
      const int64_t d = parse_layout_operand(layouts->second).map->size_bytes();
      largest_source = std::max(largest_source, s);
      largest_destination = std::max({largest_destination, s, d});
    }
    weights.push_back(planned_tries(candidate_variants(key.kernel_class).size()));
  }
  arena.source.get(largest_source);
  arena.destination.get(largest_destination);
  int64_t weight_left = 0;
  for (const int64_t w : weights) weight_left += w;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const ProblemKey& key = jobs[j];
    const std::string what =
        fmt::format("{} {}, {} thread{}", kernel_class_name(key.kernel_class),
                    type_of_bytes(key.element_bytes), key.threads, key.threads == 1 ? "" : "s");
    if (options.progress) {
      options.progress({static_cast<int>(j) + 1, static_cast<int>(jobs.size()), what});
    }
    // What is left shared among the jobs left, by the tries their schedules take.
    const double left = std::max(0.0, cap - seconds_since(start));
    const double share = left * static_cast<double>(weights[j]) / static_cast<double>(weight_left);
    weight_left -= weights[j];
    const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(share));
    std::optional<Measured> m = measure_and_record(key, mode, deadline, arena);
    if (!m) {
      report.choices.push_back({key.text(), "",
                                variant_name(key.kernel_class, model_variant(key.kernel_class)), 0,
                                0, 0, 0, "not measured: out of time (the model stays)"});
      continue;
    }
    report.choices.push_back({m->key.text(), m->choice.variant, m->model, m->choice.ratio,
                              m->choice.model_ratio, m->choice.variants, m->choice.tries, m->why});
  }
  report.seconds = seconds_since(start);
  return report;
}

}  // namespace tessera::relayout
