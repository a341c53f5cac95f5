"""tessera.to_physical against the C++ engine (BM_Relayout) and the best pure-NumPy expression.

    python bench/python/bench_to_physical.py [--threads 2] [--rounds 15] [--cpp-bench PATH]

For each case (64 MiB arrays, the relayout issue's cases 1 and 3) one round times, in the same
process and in turn (in a new random order every round): tessera.to_physical into a fresh array,
to_physical(out=...) into a preallocated one, a prebuilt tessera.Relayout plan's execute (what
BM_Relayout times), and NumPy into a preallocated array twice: the issue's np.pad + reshape +
transpose + np.copyto, and the same without np.pad (the pad width is zero for these aligned
shapes, but np.pad still copies: leaving it out is NumPy's best). Medians over rounds, and
ratios (BENCHMARKING.md: noise is +-30% between runs, so compare within a run). With --cpp-bench, tessera_bench's
BM_Relayout/<case> runs right after, for the 1.1x comparison.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import time

import ml_dtypes
import numpy as np

import tessera


def padded(x: np.ndarray, tile: tuple[int, int]) -> np.ndarray:
    """np.pad up to whole tiles: the issue's expression. np.pad always returns a new array, even
    when no padding is needed, so this is one extra pass over the data."""
    return np.pad(x, [(0, -x.shape[0] % tile[0]), (0, -x.shape[1] % tile[1])])


def numpy_f32_t8x128(x: np.ndarray, out: np.ndarray) -> None:
    rows, cols = x.shape
    tiles = x.reshape(rows // 8, 8, cols // 128, 128).transpose(0, 2, 1, 3)
    np.copyto(out.view(np.float32).reshape(rows // 8, cols // 128, 8, 128), tiles)


def numpy_bf16_t8x128_2x1(x: np.ndarray, out: np.ndarray) -> None:
    rows, cols = x.shape
    # (tile row, row pair, row in pair, tile col, col) -> (tile row, tile col, row pair, col, row in pair)
    tiles = x.reshape(rows // 8, 4, 2, cols // 128, 128).transpose(0, 3, 1, 4, 2)
    np.copyto(out.view(ml_dtypes.bfloat16).reshape(rows // 8, cols // 128, 4, 128, 2), tiles)


CASES = [
    ("f32_rowmajor_to_T8x128", np.float32, (4096, 4096), "f32[4096,4096]{1,0:T(8,128)}", numpy_f32_t8x128),
    ("bf16_rowmajor_to_T8x128_2x1", ml_dtypes.bfloat16, (4096, 8192),
     "bf16[4096,8192]{1,0:T(8,128)(2,1)}", numpy_bf16_t8x128_2x1),
]


def timed(function) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def run_case(name, dtype, shape, layout_text, numpy_version, threads, rounds):
    layout = tessera.Layout(layout_text)
    x = np.random.default_rng(1).standard_normal(shape, dtype=np.float32).astype(dtype)
    out = tessera.empty_bytes(layout.size_bytes)
    out.fill(0)  # pre-fault, as BM_Relayout does
    numpy_out = np.zeros(layout.size_bytes, dtype=np.uint8)
    row_major = tessera.Layout(f"{layout.dtype}[{shape[0]},{shape[1]}]{{1,0}}")
    plan = tessera.Relayout(row_major.index_map, layout.index_map, threads=threads)
    source = x.reshape(-1).view(np.uint8)

    methods = {
        "to_physical (new array)": lambda: tessera.to_physical(x, layout, threads=threads),
        "to_physical (out=)": lambda: tessera.to_physical(x, layout, out=out, threads=threads),
        "Relayout.execute (prebuilt plan)": lambda: plan.execute(source, out),
        "numpy reshape+transpose+copyto": lambda: numpy_version(x, numpy_out),
        "numpy pad+reshape+transpose+copyto": lambda: numpy_version(padded(x, (8, 128)), numpy_out),
    }
    expected = tessera.to_physical(x, layout, threads=threads)
    numpy_version(x, numpy_out)
    assert np.array_equal(numpy_out, expected), f"{name}: the NumPy expression disagrees"
    times = {key: [] for key in methods}
    keys = list(methods)
    order = random.Random(0)
    for _ in range(rounds):
        # A fresh random order every round, so that no method always follows the same neighbour
        # (rotating the list keeps the cyclic order: to_physical would always follow np.pad, whose
        # 64 MiB temporary is unmapped just before it).
        order.shuffle(keys)
        for key in keys:
            times[key].append(timed(methods[key]))
    logical = x.nbytes
    result = {"case": name, "threads": threads, "logical_bytes": logical, "median_ms": {}, "GB_per_s": {}}
    for key, samples in times.items():
        median = statistics.median(samples)
        result["median_ms"][key] = round(median * 1e3, 2)
        result["GB_per_s"][key] = round(2 * logical / median / 1e9, 2)  # read + written
    for numpy_key, label in (("numpy reshape+transpose+copyto", "speedup_vs_numpy"),
                             ("numpy pad+reshape+transpose+copyto", "speedup_vs_numpy_with_pad")):
        numpy_ms = result["median_ms"][numpy_key]
        result[label] = {
            key: round(numpy_ms / ms, 2) for key, ms in result["median_ms"].items() if "numpy" not in key
        }
    return result


def cpp_bench(path: str, name: str, threads: int, repetitions: int) -> float | None:
    command = [path, f"--benchmark_filter=^BM_Relayout/{name}$", f"--benchmark_repetitions={repetitions}",
               "--benchmark_format=json"]
    output = subprocess.run(command, capture_output=True, text=True, check=True,
                            env={"TESSERA_BENCH_THREADS": str(threads)}).stdout
    runs = [b for b in json.loads(output)["benchmarks"] if b.get("run_type") == "iteration"]
    if not runs:
        return None
    # bytes_per_second counts logical bytes read + written, from wall-clock time.
    rates = sorted(b["bytes_per_second"] for b in runs)
    return rates[len(rates) // 2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--cpp-bench", help="path to tessera_bench, for BM_Relayout in the same run")
    args = parser.parse_args()
    for threads in args.threads:
        for name, dtype, shape, layout_text, numpy_version in CASES:
            result = run_case(name, dtype, shape, layout_text, numpy_version, threads, args.rounds)
            if args.cpp_bench:
                rate = cpp_bench(args.cpp_bench, name, threads, 5)
                if rate:
                    cpp_ms = 2 * result["logical_bytes"] / rate * 1e3
                    result["BM_Relayout_ms"] = round(cpp_ms, 2)
                    result["ratio_to_BM_Relayout"] = {
                        key: round(ms / cpp_ms, 2)
                        for key, ms in result["median_ms"].items() if "numpy" not in key
                    }
            print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
