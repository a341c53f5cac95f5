// The problem sizes the planner tells apart: where the best kernel variant can change with size
// (an output that stays in the caches against one streamed to memory), wisdom is measured and
// looked up per size class, never decided by a rule about the caches. What a host reports about
// its caches only chooses the proxies' sizes: under a hypervisor the last-level cache a VM
// reports may be shared with its neighbours (a Xeon VM reporting 300 MiB measured streaming
// stores fastest at 64 MiB; docs/notes/2026-11-27-size-classes.md).
#pragma once

#include <cstdint>

namespace tessera::relayout {

enum class SizeClass : uint8_t {
  kCache,   // small enough that what is written may stay in the caches
  kMemory,  // larger: read from and written to memory
};

// "cache", "memory".
const char* size_class_name(SizeClass s);

// Bytes of source of the proxy `tessera tune` measures a size class on: for kCache a quarter of
// the reported last-level cache, 4 MiB to 32 MiB; for kMemory one and a half times it, 48 MiB
// to 128 MiB (a larger proxy would not fit the tuner's time).
int64_t default_proxy_bytes(SizeClass s);

// The class of a plan whose larger buffer holds `bytes`: kMemory from the geometric mean of the
// two classes' proxies on, so that each proxy sits well inside its own class.
SizeClass size_class_of(int64_t bytes);

// Where kMemory starts: bytes of the larger buffer (or of what is written, when less).
int64_t size_class_boundary();

}  // namespace tessera::relayout
