"""Compiles the sweeps (sweeps.py) and programs (programs.py) for every TPU generation with the
real compiler and writes them as test fixtures. Run through regenerate.sh, which makes the venv.

    python tools/tpu_oracle/run.py --out tests/fixtures/tpu_oracle [--only rank0,random]
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# python/tessera/oracle.py is the one place that talks to the compiler; loaded by path so the
# harness needs jax[tpu] but not a built tessera.
_spec = importlib.util.spec_from_file_location("oracle_module", os.path.join(ROOT, "python", "tessera", "oracle.py"))
oracle_module = importlib.util.module_from_spec(_spec)
sys.modules["oracle_module"] = oracle_module
_spec.loader.exec_module(oracle_module)
sys.path.insert(0, HERE)

import sweeps  # noqa: E402

ELEMENT_BYTES = {"pred": 1, "s4": 1, "u4": 1, "s8": 1, "u8": 1, "s16": 2, "u16": 2, "f16": 2,
                 "bf16": 2, "s32": 4, "u32": 4, "f32": 4, "s64": 8, "u64": 8, "f64": 8, "c64": 8,
                 "c128": 16}
BATCH_ARRAYS = 256
BATCH_BYTES = 1 << 30  # well under the 8 GB HBM of tpu-v2 even with the padding


def batches(arrays):
    """Runs of arrays whose padded size stays under BATCH_BYTES (a bound: 2x for padding)."""
    batch, total = [], 0
    for dtype, dims in arrays:
        size = 2 * max(1, math.prod(dims)) * ELEMENT_BYTES.get(dtype, 1) + 4096
        if batch and (len(batch) == BATCH_ARRAYS or total + size > BATCH_BYTES):
            yield batch
            batch, total = [], 0
        batch.append((dtype, dims))
        total += size
    if batch:
        yield batch


def shape_text(dtype, dims) -> str:
    return f"{dtype}[{','.join(str(d) for d in dims)}]"


def layout_part(entry: dict) -> str:
    """'{0,1:T(4,128)}' of 'f32[1024,3]{0,1:T(4,128)}'; the error text of a refused array."""
    if "error" in entry:
        return "error: " + entry["error"].splitlines()[0][:200]
    layout = entry["layout"]
    return layout[layout.index("]") + 1:]


def device_arrays(oracle, names):
    out = {}
    for name in names:
        description, make = sweeps.SWEEPS[name]
        arrays = make()
        layouts = {}
        for target in oracle_module.TOPOLOGIES:
            started = time.time()
            entries = []
            for batch in batches(arrays):
                entries += oracle.device_layouts(batch, target)
            layouts[target] = [layout_part(e) for e in entries]
            print(f"  {name:18} {target:8} {len(arrays):5} arrays in {time.time() - started:5.1f} s",
                  flush=True)
        out[name] = {"description": description,
                     "arrays": [shape_text(t, d) for t, d in arrays],
                     "layouts": layouts}
    return out


def memory_sizes(oracle):
    """memory_analysis().argument_size_in_bytes of single arrays: the size the compiler books."""
    arrays = sweeps.random_arrays(seed=380, count=24, max_rank=4)
    out = {}
    for target in oracle_module.TOPOLOGIES:
        entries = oracle.device_layouts(arrays, target, sizes=True)
        out[target] = [{"array": shape_text(t, d), "layout": e.get("layout"),
                        "size_bytes": e.get("size_bytes"), "error": e.get("error")}
                       for (t, d), e in zip(arrays, entries)]
    return out


def write(path, data):
    temporary = path + ".tmp"
    with open(temporary, "w") as f:
        json.dump(data, f, indent=1, sort_keys=False)
        f.write("\n")
    os.replace(temporary, path)
    print(f"wrote {os.path.relpath(path, ROOT)} ({os.path.getsize(path) // 1024} KiB)", flush=True)


PROGRAMS = ("memory_sizes", "op_results", "sharded_arrays", "oom_messages")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(ROOT, "tests", "fixtures", "tpu_oracle"))
    parser.add_argument("--only", default="",
                        help="comma-separated sweeps and programs (default: all): "
                             + ", ".join([*sweeps.SWEEPS, *PROGRAMS]))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    names = [n for n in args.only.split(",") if n] or [*sweeps.SWEEPS, *PROGRAMS]
    unknown = [n for n in names if n not in sweeps.SWEEPS and n not in PROGRAMS]
    if unknown:
        parser.error(f"unknown sweep or program: {', '.join(unknown)}")
    with oracle_module.Oracle() as oracle:
        oracle._start()
        header = {"generated_by": "tools/tpu_oracle/regenerate.sh",
                  "date": datetime.date.today().isoformat(), **oracle.versions,
                  "topologies": oracle_module.TOPOLOGIES}
        print(f"jax {oracle.versions['jax']}, libtpu {oracle.versions['libtpu']}", flush=True)
        for name in names:
            if name in sweeps.SWEEPS:
                write(os.path.join(args.out, f"{name}.json"),
                      {**header, "sweep": name, **device_arrays(oracle, [name])[name]})
        if "memory_sizes" in names:
            write(os.path.join(args.out, "memory_sizes.json"), {**header, "sizes": memory_sizes(oracle)})
    programs_wanted = [n for n in names if n in PROGRAMS[1:]]
    if not programs_wanted:
        return
    import jax
    jax.config.update("jax_enable_x64", False)
    import programs
    for kind in programs_wanted:
        function = getattr(programs, kind)
        started = time.time()
        data = {**header, kind: {t: function(t) for t in oracle_module.TOPOLOGIES}}
        print(f"  {kind:18} every generation in {time.time() - started:5.1f} s", flush=True)
        write(os.path.join(args.out, f"{kind}.json"), data)


if __name__ == "__main__":
    main()
