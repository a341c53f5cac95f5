#!/usr/bin/env python3
"""Median bytes_per_second and ratios to BM_Copy of the same case, from tessera_bench JSON:

  tessera_bench --benchmark_filter='BM_(Copy|Relayout|OneDNN|Naive)/' --benchmark_repetitions=5 \
      --benchmark_format=json > relayout.json
  python3 bench/relayout_ratios.py relayout.json
"""
import json
import statistics
import sys
from collections import defaultdict


def main(path):
    runs = defaultdict(list)
    for b in json.load(open(path))["benchmarks"]:
        if b.get("run_type") == "iteration" and "bytes_per_second" in b:
            runs[b["run_name"]].append(b["bytes_per_second"])
    cases = []
    for name in runs:
        kind, case = name.split("/", 1)
        if case not in cases:
            cases.append(case)
    print("| case | copy GB/s | tessera GB/s | tessera/copy | oneDNN/copy | naive/copy |")
    print("|---|---|---|---|---|---|")
    for case in cases:
        median = {k: statistics.median(runs[f"BM_{k}/{case}"]) for k in ("Copy", "Relayout", "OneDNN", "Naive")
                  if f"BM_{k}/{case}" in runs}
        copy = median["Copy"]
        ratio = lambda k: f"{median[k] / copy:.2f}" if k in median else "n/a"
        print(f"| `{case}` | {copy / 1e9:.1f} | {median['Relayout'] / 1e9:.1f} | {ratio('Relayout')} | "
              f"{ratio('OneDNN')} | {ratio('Naive')} |")


if __name__ == "__main__":
    main(sys.argv[1])
