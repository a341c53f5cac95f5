"""tessera.to_physical / from_physical on strided NumPy arrays against the same C-order array (issue
12, "Python without extra copies": a Fortran-order 1 GiB array within 1.2x of the C-order time).

    python bench/python/bench_strided.py [--sizes 256M,1G] [--repetitions 7] [--threads 0]

For each size (an f32[N,N] array of 256 MiB or 1 GiB, converted to T(8,128)) every repetition
times each case once, in a new random order, into a preallocated output: to_physical of the
C-order array, of its Fortran-order copy, of reversed views (rows, columns) and of a stepped slice
(every other column of a twice-as-wide array), the old way for Fortran order (a C-order copy, then
to_physical), and from_physical into C- and Fortran-order outputs. Reports the median seconds, GB/s
of the array's bytes, and the median over repetitions of each case's time over the C-order time of
the same repetition (this machine's memory bandwidth drifts over seconds; ratios within one
repetition are steadier than ratios of medians).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

import numpy as np

import tessera

SIZES = {"256M": 8192, "1G": 16384}  # f32[N,N]


def cases(n: int, threads: int) -> dict:
    rng = np.random.default_rng(0)
    c_order = rng.random((n, n), dtype=np.float32)
    fortran = np.asfortranarray(c_order)
    wide = np.empty((n, 2 * n), np.float32)
    wide[:, ::2] = c_order
    layout = tessera.Layout(f"f32[{n},{n}]{{1,0:T(8,128)}}")
    out = tessera.empty_bytes(layout.size_bytes)
    physical = tessera.to_physical(c_order, layout, threads=threads)
    back_c = np.empty((n, n), np.float32)
    back_f = np.empty((n, n), np.float32, order="F")

    def to(array):
        return lambda: tessera.to_physical(array, layout, out=out, threads=threads)

    return {
        "to_physical C order": to(c_order),
        "to_physical Fortran order": to(fortran),
        "to_physical reversed rows x[::-1]": to(c_order[::-1]),
        "to_physical reversed columns x[:, ::-1]": to(c_order[:, ::-1]),
        "to_physical stepped slice w[:, ::2]": to(wide[:, ::2]),
        "to_physical Fortran via a C-order copy (before)": lambda: tessera.to_physical(
            np.ascontiguousarray(fortran), layout, out=out, threads=threads
        ),
        "from_physical out= C order": lambda: tessera.from_physical(physical, layout, out=back_c, threads=threads),
        "from_physical out= Fortran order": lambda: tessera.from_physical(
            physical, layout, out=back_f, threads=threads
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="256M,1G")
    parser.add_argument("--repetitions", type=int, default=7)
    parser.add_argument("--threads", type=int, default=0)
    args = parser.parse_args()
    report = []
    for size in args.sizes.split(","):
        n = SIZES[size]
        timed = cases(n, args.threads)
        for call in timed.values():  # warm: plans built, pages touched
            call()
        seconds: dict[str, list[float]] = {name: [] for name in timed}
        ratios: dict[str, list[float]] = {name: [] for name in timed}
        for _ in range(args.repetitions):
            names = list(timed)
            random.shuffle(names)
            this_round = {}
            for name in names:
                start = time.perf_counter()
                timed[name]()
                this_round[name] = time.perf_counter() - start
                seconds[name].append(this_round[name])
            reference = {"to": "to_physical C order", "fr": "from_physical out= C order"}
            for name, s in this_round.items():
                ratios[name].append(s / this_round[reference[name[:2]]])
        for name in timed:
            median = statistics.median(seconds[name])
            row = {
                "size": size,
                "case": name,
                "median_s": round(median, 4),
                "GB_per_s": round(4 * n * n / median / 1e9, 2),
                "ratio_to_C_order": round(statistics.median(ratios[name]), 3),
            }
            report.append(row)
            print(f"{size:>5} {name:<50} {row['median_s']:8.4f} s {row['GB_per_s']:6.2f} GB/s "
                  f"{row['ratio_to_C_order']:6.3f}x", flush=True)
        del timed
    print(json.dumps(report))


if __name__ == "__main__":
    main()
