// The process's wisdom (planner.h): the variant measured fastest per problem class on this host,
// read from a JSON file keyed by host fingerprint, written by `tessera tune`.
#pragma once

#include <optional>
#include <string>

#include "relayout/kernel_variant.h"
#include "relayout/size_class.h"

namespace tessera::relayout {

// A problem class: what a measurement on a proxy stands for.
struct ProblemKey {
  KernelClass kernel_class = KernelClass::kNone;
  int element_bytes = 4;
  // Rows a multiple of 4 KiB apart ("page"), of a line ("line"), "odd"; transposes of rows 32 KiB
  // or more apart "wide" (plan_classes.h).
  std::string pitch = "page";
  int threads = 1;
  SizeClass size = SizeClass::kMemory;  // what the proxy's size stood for (size_class.h)

  // "transpose/4B/page/memory/t2"
  std::string text() const;
};

struct WisdomChoice {
  std::string variant;   // canonical name (kernel_variant.h)
  std::string measured;  // "2026-11-27" (UTC)
  std::string mode;      // "measure" or "patient"
  double ratio = 0;      // to a copy in the same run
  double model_ratio = 0;
  int variants = 0;
  int tries = 0;
};

struct FoundWisdom {
  std::string key;  // the problem it was measured for: `key` itself, or the nearest measured one
  WisdomChoice choice;
  bool exact = false;
};

// The choice for `key`, or for the nearest problem of the same class and element size (another
// row pitch, then the nearest thread count, then the other size class). Reads the default wisdom
// file the first time any wisdom is asked for (unless wisdom was set before).
std::optional<FoundWisdom> find_wisdom(const ProblemKey& key);

// Adds or replaces this host's choice for `key`.
void record_wisdom(const ProblemKey& key, const WisdomChoice& choice);

// Today's date, UTC: "2026-11-27".
std::string today_utc();

// Sends a warning to the handler (planner.h).
void warn(const std::string& message);

}  // namespace tessera::relayout
