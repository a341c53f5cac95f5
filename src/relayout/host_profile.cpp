#include "relayout/host_profile.h"

#include <hwy/targets.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <fstream>
#include <thread>

#include "relayout/cache_size.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

#include <cstring>
#endif

namespace tessera::relayout {
namespace {

struct CpuId {
  std::string vendor;
  int family = 0;
  int model = 0;
  bool avx512f = false;
};

// The family is the base family plus the extended family when the base is 0xF, the model the
// base model plus the extended model shifted in for families 6 and 0xF (AMD's and Intel's manuals).
CpuId read_cpuid() {
  CpuId id;
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0, &a, &b, &c, &d) == 0) return id;
  const unsigned leaves = a;
  char vendor[13] = {};
  std::memcpy(vendor, &b, 4);
  std::memcpy(vendor + 4, &d, 4);
  std::memcpy(vendor + 8, &c, 4);
  id.vendor = vendor;
  __get_cpuid(1, &a, &b, &c, &d);
  const unsigned base = (a >> 8) & 0xF;
  id.family = static_cast<int>(base == 0xF ? base + ((a >> 20) & 0xFF) : base);
  const unsigned model = (a >> 4) & 0xF;
  id.model = static_cast<int>(base == 0xF || base == 6 ? model + (((a >> 16) & 0xF) << 4) : model);
  if (leaves >= 7) {
    __get_cpuid_count(7, 0, &a, &b, &c, &d);
    id.avx512f = (b >> 16) & 1;
  }
#endif
  return id;
}

const CpuId& cpuid() {
  static const CpuId id = read_cpuid();
  return id;
}

std::string cpuinfo_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0 && line.rfind("Model", 0) != 0) continue;
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::size_t first = line.find_first_not_of(" \t", colon + 1);
    return first == std::string::npos ? "" : line.substr(first);
  }
  return "";
}

// The bracketed word of /sys/kernel/mm/transparent_hugepage/enabled: "always [madvise] never".
std::string huge_page_mode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string text;
  std::getline(in, text);
  const std::size_t open = text.find('[');
  const std::size_t close = text.find(']', open);
  return open == std::string::npos || close == std::string::npos
             ? ""
             : text.substr(open + 1, close - open - 1);
}

HostFacts read_host_facts() {
  HostFacts facts;
  facts.vendor = cpuid().vendor;
  facts.family = cpuid().family;
  facts.model = cpuid().model;
  facts.cpu_name = cpuinfo_model_name();
  facts.l1d_bytes = data_cache_bytes(1);
  facts.l2_bytes = data_cache_bytes(2);
  facts.llc_bytes = last_level_cache_bytes();
  for (const int64_t target : hwy::SupportedAndGeneratedTargets())
    facts.simd_targets.emplace_back(hwy::TargetName(target));
  facts.huge_pages = huge_page_mode();
  facts.threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  return facts;
}

std::atomic<bool> priors_on{true};

}  // namespace

const HostFacts& host_facts() {
  static const HostFacts facts = read_host_facts();
  return facts;
}

HostPriors host_priors() {
  if (!priors_on.load(std::memory_order_relaxed)) return {};
  const CpuId& id = cpuid();
  const bool family_19h = id.vendor == "AuthenticAMD" && id.family == 0x19;
  const bool zen3 = family_19h && !id.avx512f;  // of family 19h only Zen 4 has AVX-512
  const bool zen4 = family_19h && id.avx512f;
  HostPriors p;
  p.avx2_memory_kernels = zen4;  // 512-bit vectors run as two halves there
  p.walk_fewer_streams = zen3;
  p.prefetch_to_l2 = zen3 || zen4;
  p.transpose_rows_32 = zen3;
  p.realigned_rows_64 = zen4;
  p.stream_spread_runs = zen3 || zen4;
  return p;
}

bool use_host_priors(bool on) {
  return priors_on.exchange(on);
}

}  // namespace tessera::relayout
