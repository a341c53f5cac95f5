// Output buffers for conversions: NumPy uint8 arrays backed by huge pages.
#pragma once

#include <cstdint>

#include "numpy_arrays.h"

namespace tessera::python {

// An uninitialised uint8 array of `bytes` bytes owned by NumPy. Large ones are 2 MiB aligned and
// advised as transparent huge pages: first touch of 4 KiB pages runs at a small fraction of a
// copy's speed, and a 2 MiB page takes one fault for 512 small ones (docs/performance.md,
// "Method"; docs/notes/2026-11-21-python-to-physical.md).
NumpyArray<uint8_t> empty_bytes(int64_t bytes);

// Frees the freed large buffers kept for reuse (at most 4 and 512 MiB); returns their bytes.
int64_t release_buffers();

}  // namespace tessera::python
