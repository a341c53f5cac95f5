// The tuner (planner.h, tune) checked on any host: it runs on small proxies with all the time it
// needs, and what is asserted is what that run measured, never how fast anything ran. For each
// problem class the same run measured, a plan of that class's size reads the choice it recorded:
// the candidate measured fastest, or the model's within 1% of it.
#include "relayout/tuner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "relayout/plan_choices.h"
#include "relayout/plan_internals.h"
#include "relayout/size_class.h"
#include "relayout/wisdom.h"
#include "tessera/error.h"
#include "tessera/relayout/layout_operand.h"
#include "tessera/relayout/planner.h"
#include "tessera/relayout/relayout_plan.h"

namespace tessera::relayout {
namespace {

// "transpose/4B/page/memory/t1" back into its key.
ProblemKey key_of(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find('/', start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  EXPECT_EQ(parts.size(), 5u) << text;
  ProblemKey key;
  key.kernel_class = kernel_class_named(parts[0]);
  key.element_bytes = std::stoi(parts[1]);
  key.pitch = parts[2];
  key.size = parts[3] == "cache" ? SizeClass::kCache : SizeClass::kMemory;
  key.threads = std::stoi(parts[4].substr(1));
  EXPECT_EQ(key.text(), text);
  return key;
}

TEST(Tuner, ThePlannerPicksWhatTheSameRunMeasuredFastest) {
  forget_wisdom();
  TuneOptions options;
  options.threads = {1};
  options.seconds = 3600;  // a cap, not a duration: the schedule ends when it is done
  options.cache_proxy_bytes = int64_t{2} << 20;
  options.memory_proxy_bytes = int64_t{6} << 20;
  const TuneReport report = tune(options);
  EXPECT_NO_THROW(require_every_problem_measured(report));
  std::vector<KernelClass> seen;
  for (const TuneChoice& c : report.choices) {
    SCOPED_TRACE(c.problem + ": " + c.why);
    ASSERT_FALSE(c.variant.empty());
    EXPECT_GT(c.variants, 0);
    EXPECT_GE(c.tries, c.variants);
    // The choice is the fastest candidate, or the model kept within 1% of it.
    if (c.variant != c.fastest) {
      EXPECT_EQ(c.why.rfind("the model's", 0), 0u);
      EXPECT_GE(c.model_ratio, 0.99 * c.fastest_ratio * (1 - 1e-9));
    }
    const ProblemKey key = key_of(c.problem);
    seen.push_back(key.kernel_class);
    // A problem of the class's own size class, as the planner tells them apart, whose rows are
    // as far apart as the proxy's were (its pitch class): the first such size from the class's
    // lower end, in steps of 1 MiB.
    ProblemKey asked = key;
    asked.pitch = key.pitch == "wide" ? "wide" : "page";  // as tune asks; the proxy reads as
                                                          // its own pitch
    const int64_t mib = int64_t{1} << 20;
    const int64_t low = key.size == SizeClass::kCache ? 4 * mib : size_class_boundary();
    const int64_t high = key.size == SizeClass::kCache ? size_class_boundary() - 1 : 8 * low;
    std::optional<RelayoutPlan> p;
    for (int64_t bytes = low; bytes <= high && !p; bytes += mib) {
      const auto layouts = proxy_layouts(asked, bytes);
      ASSERT_TRUE(layouts.has_value());
      const LayoutOperand from = parse_layout_operand(layouts->first);
      const LayoutOperand to = parse_layout_operand(layouts->second);
      // What the planner classes by: the larger of the source and what is written (an NPU
      // image is mostly not written).
      const int64_t larger = key.kernel_class == KernelClass::kRunsSpread
                                 ? from.map->size_bytes()
                                 : std::max(from.map->size_bytes(), to.map->size_bytes());
      if (to.map->size_bytes() < kWisdomBytes || size_class_of(larger) != key.size) continue;
      RelayoutPlan candidate = plan(*from.map, *to.map, {.threads = key.threads});
      if (main_kernel_class(candidate) == key.kernel_class && main_pitch(candidate) == key.pitch)
        p = candidate;
    }
    ASSERT_TRUE(p.has_value()) << "no problem of this class's size and pitch";
    EXPECT_EQ(main_variant(*p), c.variant + " (measured " + today_utc() + " on this host)")
        << p->describe();
  }
  for (const KernelClass k : tuned_classes()) {
    EXPECT_NE(std::find(seen.begin(), seen.end(), k), seen.end()) << kernel_class_name(k);
  }
  forget_wisdom();
}

TEST(Tuner, AClassLeftUnmeasuredIsAFailureNamingIt) {
  forget_wisdom();
  TuneOptions options;
  options.threads = {1};
  options.classes = {"transpose"};
  options.seconds = 1e-9;  // over before the first try
  const TuneReport report = tune(options);
  ASSERT_FALSE(report.choices.empty());
  for (const TuneChoice& c : report.choices) EXPECT_TRUE(c.variant.empty()) << c.problem;
  try {
    require_every_problem_measured(report);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("not measured"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("transpose/4B/"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("give it more time"), std::string::npos) << e.message();
  }
  forget_wisdom();
}

TEST(Tuner, UnknownClassesAreInvalid) {
  try {
    TuneOptions options;
    options.classes = {"transposes"};
    tune(options);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalid);
    EXPECT_NE(e.message().find("'transposes' is not a kernel class"), std::string::npos);
  }
}

}  // namespace
}  // namespace tessera::relayout
