"""tessera.to_physical against the C++ engine (BM_Relayout) and the best pure-NumPy expression.

    python bench/python/bench_to_physical.py [--threads 2] [--rounds 8] [--processes 3]
                                             [--cpp-bench PATH]

For each case (64 MiB arrays, the relayout issue's cases 1 and 3) one round times, in a new random
order every round, a burst of back-to-back calls of each method: tessera.to_physical into a fresh
array, to_physical(out=...) into a preallocated one, a prebuilt tessera.Relayout plan's execute
(what BM_Relayout times), and NumPy into a preallocated array twice: the issue's np.pad + reshape +
transpose + np.copyto, and the same without np.pad (the pad width is zero for these aligned
shapes, but np.pad still copies: leaving it out is NumPy's best).

A burst is --warmup seconds of untimed calls and then --seconds of timed calls (NumPy's, at
10-200 ms each: 1 untimed call and 3 timed ones), the way Google Benchmark times BM_Relayout: its
final measurement loop follows shorter runs of the same loop. That matters here: this VM's memory
system speeds up under sustained load, by 7-25% after the first 50 ms (a 0.3 s loop in C++ ran
at 2.0-2.3 ms per call where 20-call bursts after a pause ran at 2.4-2.6). "median_ms" is the
median of the timed calls; "first_call_median_ms" the median of each burst's first call, which
follows another method's work (its caches, an idle second core) and is slower for every method
alike.

With --cpp-bench, tessera_bench's BM_Relayout/<case> also runs once in every round, between the
bursts, so that each round pairs Python and C++ timings taken within a second of each other: this
machine's memory bandwidth drifts by 1.5x over seconds, far more than the difference measured.
"ratio_to_BM_Relayout" is the median over rounds of (the round's median timed call / the round's
BM_Relayout time). Each BM_Relayout run is a new process with its own buffers; so that the Python
side too is not one draw, --processes runs the rounds in that many Python processes and pools them.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
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


def timed_for(function, seconds: float) -> list[float]:
    """The seconds of each call of function, called back to back for about `seconds` (at least 3
    calls)."""
    times = []
    while len(times) < 3 or sum(times) < seconds:
        times.append(timed(function))
    return times


def run_rounds(case, threads, rounds, warmup_seconds, timed_seconds, cpp_bench_path, seed):
    """Per method, every timed call's seconds, every burst's first call's seconds, and per round
    the ratio of the round's median timed call to the round's BM_Relayout time."""
    name, dtype, shape, layout_text, numpy_version = case
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
    raw = {"repeated": {key: [] for key in methods}, "first": {key: [] for key in methods},
           "round_ratios": {key: [] for key in methods if "numpy" not in key}, "BM_Relayout": []}
    keys = list(methods) + (["BM_Relayout"] if cpp_bench_path else [])
    order = random.Random(seed)
    for _ in range(rounds):
        # A fresh random order every round, so that no method always follows the same neighbour
        # (rotating the list keeps the cyclic order: to_physical would always follow np.pad, whose
        # 64 MiB temporary is unmapped just before it).
        order.shuffle(keys)
        round_medians = {}
        for key in keys:
            if key == "BM_Relayout":
                raw["BM_Relayout"].append(2 * x.nbytes / cpp_bench(cpp_bench_path, name, threads))
                continue
            if "numpy" in key:
                warmup = [timed(methods[key])]
                burst = [timed(methods[key]) for _ in range(3)]
            else:
                warmup = timed_for(methods[key], warmup_seconds)
                burst = timed_for(methods[key], timed_seconds)
            raw["first"][key].append(warmup[0])
            raw["repeated"][key].extend(burst)
            round_medians[key] = statistics.median(burst)
        if cpp_bench_path:
            for key, ratios in raw["round_ratios"].items():
                ratios.append(round_medians[key] / raw["BM_Relayout"][-1])
    return raw


def summarize(case, threads, raw):
    name, dtype, shape = case[0], case[1], case[2]
    logical = int(np.prod(shape)) * np.dtype(dtype).itemsize
    result = {"case": name, "threads": threads, "logical_bytes": logical, "median_ms": {},
              "first_call_median_ms": {}, "GB_per_s": {}}
    for key, samples in raw["repeated"].items():
        median = statistics.median(samples)
        result["median_ms"][key] = round(median * 1e3, 2)
        result["first_call_median_ms"][key] = round(statistics.median(raw["first"][key]) * 1e3, 2)
        result["GB_per_s"][key] = round(2 * logical / median / 1e9, 2)  # read + written
    for numpy_key, label in (("numpy reshape+transpose+copyto", "speedup_vs_numpy"),
                             ("numpy pad+reshape+transpose+copyto", "speedup_vs_numpy_with_pad")):
        numpy_ms = result["median_ms"][numpy_key]
        result[label] = {
            key: round(numpy_ms / ms, 2) for key, ms in result["median_ms"].items() if "numpy" not in key
        }
    if raw["BM_Relayout"]:
        result["BM_Relayout_ms"] = round(statistics.median(raw["BM_Relayout"]) * 1e3, 2)
        result["ratio_to_BM_Relayout"] = {
            key: round(statistics.median(r), 3) for key, r in raw["round_ratios"].items()
        }
        result["ratio_to_BM_Relayout_quartiles"] = {
            key: [round(q, 3) for q in statistics.quantiles(r, n=4)] for key, r in raw["round_ratios"].items()
        }
    return result


def cpp_bench(path: str, name: str, threads: int) -> float:
    """BM_Relayout/<name>'s bytes_per_second (logical bytes read + written, from wall-clock time)
    over about 0.3 s of back-to-back iterations."""
    command = [path, f"--benchmark_filter=^BM_Relayout/{name}$", "--benchmark_min_time=0.3",
               "--benchmark_format=json"]
    output = subprocess.run(command, capture_output=True, text=True, check=True,
                            env={"TESSERA_BENCH_THREADS": str(threads)}).stdout
    runs = [b for b in json.loads(output)["benchmarks"] if b.get("run_type") == "iteration"]
    if not runs:
        raise RuntimeError(f"{path} has no benchmark BM_Relayout/{name}")
    return runs[0]["bytes_per_second"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rounds", type=int, default=8, help="rounds per process")
    parser.add_argument("--warmup", type=float, default=0.2, help="seconds of untimed calls per burst")
    parser.add_argument("--seconds", type=float, default=0.3, help="seconds of timed calls per burst")
    parser.add_argument("--processes", type=int, default=3, help="Python processes whose rounds are pooled")
    parser.add_argument("--cpp-bench", help="path to tessera_bench: BM_Relayout in every round")
    parser.add_argument("--raw", nargs=3, metavar=("CASE", "THREADS", "SEED"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.warmup < 0 or args.seconds <= 0 or args.rounds < 2 or args.processes < 1:
        parser.error("--seconds must be positive, --processes at least 1, --rounds at least 2")
    cases = {case[0]: case for case in CASES}
    if args.raw:  # one process's rounds, for the parent to pool
        case, threads, seed = cases[args.raw[0]], int(args.raw[1]), int(args.raw[2])
        print(json.dumps(run_rounds(case, threads, args.rounds, args.warmup, args.seconds, args.cpp_bench, seed)))
        return
    for threads in args.threads:
        for case in CASES:
            pooled = None
            for process in range(args.processes):
                command = [sys.executable, __file__, "--raw", case[0], str(threads), str(process),
                           "--rounds", str(args.rounds), "--warmup", str(args.warmup), "--seconds", str(args.seconds)]
                if args.cpp_bench:
                    command += ["--cpp-bench", args.cpp_bench]
                raw = json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)
                pooled = raw if pooled is None else merge(pooled, raw)
            result = summarize(case, threads, pooled)
            result["processes"] = args.processes
            print(json.dumps(result, indent=1), flush=True)


def merge(a, b):
    """Two processes' raw samples as one (lists of the same keys joined)."""
    if isinstance(a, list):
        return a + b
    return {key: merge(a[key], b[key]) for key in a}


if __name__ == "__main__":
    main()
