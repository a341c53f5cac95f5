// Output buffers for conversions: NumPy uint8 arrays backed by huge pages.
#pragma once

#include <cstdint>

#include "numpy_arrays.h"

namespace tessera::python {

// An uninitialised uint8 array of `bytes` bytes owned by NumPy. Large ones are 2 MiB aligned and
// advised as transparent huge pages (docs/performance.md, "Method": first touch of 4 KiB pages runs
// at 0.2-0.4 GB/s on this kind of machine; huge pages take 512x fewer faults).
NumpyArray<uint8_t> empty_bytes(int64_t bytes);

// Frees the freed large buffers kept for reuse (at most 4 and 512 MiB); returns their bytes.
int64_t release_buffers();

}  // namespace tessera::python
