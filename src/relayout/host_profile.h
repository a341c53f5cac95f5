// Facts read from this CPU that the planner keys its wisdom by (planner.h), and the priors its
// model starts from when there is no wisdom. Kernel choices are measured on the host (`tessera
// tune`); a rule per CPU family was a guess that the next host of the family broke, so the only
// rules left here are priors, each the choice its family was measured faster with
// (docs/notes/2026-11-27-host-rules.md has the measurements and the hosts that disagreed).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::relayout {

struct HostFacts {
  std::string vendor;    // CPUID's: "AuthenticAMD", "GenuineIntel"; "" off x86
  int family = 0;        // x86 family with the extended family added (0x19: Zen 3/4, 0x1A: Zen 5)
  int model = 0;         // with the extended model
  std::string cpu_name;  // /proc/cpuinfo's "model name", for reports
  int64_t l1d_bytes = 0, l2_bytes = 0, llc_bytes = 0;  // per core as cpu0 reports them; 0: unknown
  std::vector<std::string>
      simd_targets;        // Highway's names of the targets this CPU runs, best first
  std::string huge_pages;  // transparent huge pages: "always", "madvise", "never"
  int threads = 1;         // std::thread::hardware_concurrency
};

// Read once.
const HostFacts& host_facts();

// The priors of the model (kernel_variant.cpp, model_variant): what each AMD family 19h kind ran
// faster with when it was measured. All false on other CPUs, and while switched off.
struct HostPriors {
  bool avx2_memory_kernels = false;  // Zen 4: streaming copies, staged transposes, packings
  bool walk_fewer_streams = false;   // Zen 3: tiling writes whole tiles in turn
  bool prefetch_to_l2 = false;       // Zen 3 and Zen 4: transposes prefetch into the L2
  bool transpose_rows_32 = false;    // Zen 3: transposes read 32 source rows at a time
  bool realigned_rows_64 = false;    // Zen 4: Fortran-order destinations in blocks of 64 rows
  bool stream_spread_runs = false;   // Zen 3 and Zen 4: runs spread over an image stream
};
HostPriors host_priors();

// Switches the priors off (tests that must run each Highway target's own code, highway_targets.h)
// or back on; returns whether they were on.
bool use_host_priors(bool on);

}  // namespace tessera::relayout
