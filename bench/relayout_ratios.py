#!/usr/bin/env python3
"""Median bytes_per_second and ratios from tessera_bench JSON: each case against BM_Copy, the
planner's choice (BM_Relayout, its variant from the label) against the fastest forced variant
(BM_Variant/<case>/<variant>), and the transposes against their access pattern's own limit
(BM_TransposeCeiling):

  tessera_bench --benchmark_filter='^BM_(Copy|Relayout|OneDNN|Variant|TransposeCeiling)/' \\
      --benchmark_enable_random_interleaving=true --benchmark_repetitions=5 \\
      --benchmark_format=json > relayout.json
  python3 bench/relayout_ratios.py relayout.json
"""
import json
import statistics
import sys
from collections import defaultdict


def main(path):
    report = json.load(open(path))
    runs = defaultdict(list)
    labels = {}
    for b in report["benchmarks"]:
        if b.get("run_type") == "iteration" and "bytes_per_second" in b:
            runs[b["run_name"]].append(b["bytes_per_second"])
            if b.get("label"):
                labels[b["run_name"]] = b["label"]
    context = report.get("context", {})
    print(f"{context.get('tessera_host', 'host unknown')}; wisdom {context.get('tessera_wisdom', '?')}; "
          f"{context.get('date', '')}")
    print()
    cases = []
    variants = defaultdict(dict)
    for name in runs:
        kind, rest = name.split("/", 1)
        case = rest.split("/", 1)[0]
        if case not in cases:
            cases.append(case)
        if kind == "BM_Variant":
            variants[case][rest.split("/", 1)[1]] = statistics.median(runs[name])
    print("| case | copy GB/s | tessera/copy | planner's variant | fastest variant | tessera/fastest | "
          "oneDNN/copy | tessera/ceiling |")
    print("|---|---|---|---|---|---|---|---|")
    for case in cases:
        median = {k: statistics.median(runs[f"BM_{k}/{case}"])
                  for k in ("Copy", "Relayout", "OneDNN", "TransposeCeiling") if f"BM_{k}/{case}" in runs}
        if "Copy" not in median or "Relayout" not in median:
            continue
        copy = median["Copy"]
        mine = median["Relayout"]
        best_name, best = max(variants[case].items(), key=lambda kv: kv[1], default=("n/a", None))
        ratio = lambda k: f"{median[k] / copy:.2f}" if k in median else "n/a"
        ceiling = f"{mine / median['TransposeCeiling']:.2f}" if "TransposeCeiling" in median else "n/a"
        print(f"| `{case}` | {copy / 1e9:.1f} | {mine / copy:.2f} | {labels.get(f'BM_Relayout/{case}', '')} | "
              f"{best_name} {best / copy:.2f} | {mine / best:.2f} | {ratio('OneDNN')} | {ceiling} |"
              if best else
              f"| `{case}` | {copy / 1e9:.1f} | {mine / copy:.2f} | {labels.get(f'BM_Relayout/{case}', '')} | "
              f"n/a | n/a | {ratio('OneDNN')} | {ceiling} |")


if __name__ == "__main__":
    main(sys.argv[1])
