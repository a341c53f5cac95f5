"""NPU local memory (docs/design/npu-local-memory.md) from Python: place a tensor, check that it fits,
pick the best matrix width, and put an array's elements where the NPUs would read them.

    python examples/python/npu_local_memory.py
"""

import numpy as np

import tessera
from tessera import npu

# A small made-up device: 4 NPUs with 1 KiB of local memory each, 128-byte alignment.
device = npu.Device("npus=4,lmem=1024,align=128")
print(device)

# %% An f32 tensor (N, C, H, W) = (2, 3, 4, 5) at address 2048, in the aligned layout.
tensor = npu.Tensor(device, (2, 3, 4, 5), "f32", address=2048, layout="aligned")
print(f"strides {tensor.strides}, fits: {tensor.fits}")
npu_index, offset = tensor.place((1, 2, 0, 0))
print(f"element (1,2,0,0) lives on NPU {npu_index} at byte {offset}")

# %% A 2 x 40 f32 matrix: the column width W per channel that uses the fewest bytes.
print(f"best W for a 2x40 f32 matrix: {npu.best_w(device, 2, 40, 'f32')}")

# %% The whole local-memory image (X*S bytes) with the tensor's elements in place, and back.
values = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
image = tessera.to_physical(values, tensor)
assert image.size == device.total_bytes
assert np.array_equal(tessera.from_physical(image, tensor), values)
start = npu_index * device.local_memory_bytes + offset
print(f"image holds {image[start:start + 4].view(np.float32)[0]} at element (1,2,0,0)")
