// How much last-level cache this machine gives one core: what decides whether an output is
// written with non-temporal stores (relayout_plan.cpp).
#pragma once

#include <cstdint>

namespace tessera::relayout {

// Bytes of the highest cache level cpu0 reports in /sys/devices/system/cpu/cpu0/cache (Linux),
// read once; 0 where that is unavailable. Not sysconf(_SC_LEVEL3_CACHE_SIZE): under KVM on an
// AMD EPYC Zen 5 it reports the socket's 384 MiB, where this core's complex has 32 MiB.
int64_t last_level_cache_bytes();

// Bytes of cpu0's data (or unified) cache of `level` (1, 2, 3), read once; 0 where unknown.
int64_t data_cache_bytes(int level);

}  // namespace tessera::relayout
