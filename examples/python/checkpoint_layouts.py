"""A notebook-style tour (each `# %%` is a cell): why an array takes more TPU memory than its
numbers, how a checkpoint array gets into and out of the TPU's tiled bytes, and a picture of where
its elements live.

    python examples/python/checkpoint_layouts.py [OUTPUT_DIR]   # writes the pictures there
"""

import pathlib
import sys

import ml_dtypes
import numpy as np

import tessera

out_dir = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
out_dir.mkdir(parents=True, exist_ok=True)

# %% 1. The out-of-memory report: an s32[2048,1,128,128,4] activation on a TPU, in the order
# {4,3,2,1,0} the report printed. A summary first: how much of its HBM footprint is padding, and
# the change that takes least. The whole report is a dict (report.keys()), the same as
# `tessera explain SHAPE --json`; its suggestions never take more memory than the array does.
report = tessera.explain("s32[2048,1,128,128,4]{4,3,2,1,0}", target="tpu")
GiB, MiB = 2**30, 2**20
print(f"{report['layout']}: {report['size_bytes'] / GiB:.1f} GiB in memory for "
      f"{report['logical_bytes'] / MiB:.0f} MiB of data ({report['padding_fraction']:.1%} padding)")
for source in report["padding_sources"]:
    print(f"  padding from {source['text']}")
best = report["fixes"][0]
print(f"best change: {best['change']} -> {best['layout']}, {best['bytes_saved'] / GiB:.1f} GiB saved")
assert all(s["bytes_saved"] >= 0 for s in report["suggestions"] + report["fixes"])

# %% 2. A checkpoint array: bf16 weights of shape (32, 300) as the TPU lays them out.
weights = (np.arange(32 * 300, dtype=np.float32).reshape(32, 300) / 64).astype(ml_dtypes.bfloat16)
layout = tessera.tpu_layout("bf16", weights.shape)
print(f"{layout}: {layout.size_bytes} bytes on the device for {weights.nbytes} bytes of weights "
      f"({layout.padding_fraction:.0%} padding)")

device_bytes = tessera.to_physical(weights, layout)  # what the TPU holds, padding included
restored = tessera.from_physical(device_bytes, layout)  # de-tiled back on the host
assert restored.dtype == weights.dtype and np.array_equal(restored, weights)
print(f"element (31, 299) sits at element offset {layout.linear_index((31, 299))}; round trip exact")

# %% 3. Draw a small layout: the logical grid with its tiles beside memory in offset order.
small = tessera.Layout.parse("f32[3,5]{1,0:T(2,2)}")
picture = out_dir / "f32_3x5_T2x2.svg"
picture.write_text(small.to_svg(mark=[2, 3]))
print(f"wrote {picture} (element (2,3) marked; it is at offset {small.linear_index((2, 3))})")
