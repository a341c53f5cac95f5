#!/usr/bin/env python3
"""The planner's acceptance check: after one `tessera tune` (at most 10 s), every case of the
relayout benchmark at 64 MiB and 1 GiB, with 1 and 2 threads, the planner's choice (BM_Relayout)
against every forced candidate variant of the case's kernel class (BM_Variant) and oneDNN, all in
the same process, randomly interleaved. One benchmark process per case, so that a case's buffers
are allocated once.

    python3 bench/planner_acceptance.py                 # about 15-25 minutes on a 2-vCPU host
    python3 bench/planner_acceptance.py --threads 1 --cases f32_transpose   # a smoke run

It records the load average before and after each thread count's run and the spread of the
repetitions, and publishes a run (Google Benchmark's JSON with the tune's output, the CPU and the
load added, in bench/results/planner/) only when it was quiet: load average at most 1.5 and
spread at most 10% (bench/run_quality.py). A run that was not is written to a temporary file,
named, and the script exits 3. Per case it prints planner / fastest forced variant (the issue's
bound: within 3%, within the run's own noise, which it states) and whether the planner is ahead
of oneDNN.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import record_results  # noqa: E402
import run_quality  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[1]
BOUND = 0.97  # the planner within 3% of the fastest forced variant


def bench_cases(bench: str) -> list[str]:
    listed = subprocess.run([bench, "--benchmark_list_tests=true", "--benchmark_filter=^BM_Relayout/"],
                            check=True, capture_output=True, text=True).stdout.split()
    return [name.split("/", 1)[1] for name in listed]


def run_case(bench: str, case: str, threads: int, args, env: dict) -> dict:
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as out:
        path = out.name
    command = [bench, f"--benchmark_filter=^BM_(Copy|Relayout|OneDNN|Variant)/{case}(/|$)",
               "--benchmark_enable_random_interleaving=true", f"--benchmark_repetitions={args.repetitions}",
               f"--benchmark_min_time={args.min_time}", f"--benchmark_out={path}", "--benchmark_out_format=json"]
    subprocess.run(command, check=True, env=dict(env, TESSERA_BENCH_THREADS=str(threads)),
                   stdout=subprocess.DEVNULL)
    data = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
    os.unlink(path)
    return data


def summarize(report: dict) -> list[dict]:
    """Per case: the planner's median against the fastest forced variant's and oneDNN's."""
    values = run_quality.samples(report)
    labels = {b["run_name"]: b.get("label", "") for b in report["benchmarks"] if b.get("label")}
    median = {name: statistics.median(v) for name, v in values.items()}
    noise = {name: (statistics.stdev(v) / statistics.mean(v) if len(v) > 1 else 0.0) for name, v in values.items()}
    rows = []
    for name in median:
        if not name.startswith("BM_Relayout/"):
            continue
        case = name.split("/", 1)[1]
        variants = {n.split("/", 2)[2]: m for n, m in median.items() if n.startswith(f"BM_Variant/{case}/")}
        row = {"case": case, "planner": labels.get(name, ""), "copy_ratio": None, "fastest": None,
               "planner_over_fastest": None, "noise": None, "onednn_ratio": None, "ahead_of_onednn": None}
        copy = median.get(f"BM_Copy/{case}")
        if copy:
            row["copy_ratio"] = median[name] / copy
        if variants:
            best = max(variants, key=variants.get)
            row["fastest"] = best
            row["planner_over_fastest"] = median[name] / variants[best]
            row["noise"] = max(noise[name], noise[f"BM_Variant/{case}/{best}"])
        onednn = median.get(f"BM_OneDNN/{case}")
        if onednn:
            row["onednn_ratio"] = onednn / copy if copy else None
            row["ahead_of_onednn"] = median[name] >= onednn
        rows.append(row)
    return rows


def verdict(row: dict) -> str:
    ratio = row["planner_over_fastest"]
    if ratio is None:
        return "no variants"
    if ratio >= BOUND:
        return "within 3%"
    if ratio >= BOUND - row["noise"]:
        return "within 3% and the noise"
    return "BEHIND"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bench", default=str(REPO / "build" / "release" / "bench" / "tessera_bench"))
    parser.add_argument("--tessera", default=str(REPO / "build" / "release" / "tessera"))
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--cases", nargs="+", help="case names (default: every case, 64 MiB and 1 GiB)")
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--min-time", default="0.2")
    parser.add_argument("--tune-seconds", help="tune's cap (default: its own, 10 s)")
    parser.add_argument("--out-dir", default=str(REPO / "bench" / "results" / "planner"))
    args = parser.parse_args()

    facts = record_results.cpu_facts()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                            text=True).stdout.strip() or "unknown"
    cache = tempfile.TemporaryDirectory(prefix="tessera-acceptance-")  # the tune's wisdom, removed at exit
    env = {k: v for k, v in os.environ.items() if k != "TESSERA_WISDOM"}
    env["XDG_CACHE_HOME"] = cache.name
    started = time.monotonic()
    tune_command = [args.tessera, "tune", "--quiet"] + (["--seconds", args.tune_seconds] if args.tune_seconds else [])
    tune = subprocess.run(tune_command, env=env, capture_output=True, text=True)
    print(tune.stdout, end="")
    if tune.returncode != 0:
        print(f"tessera tune failed: {tune.stderr.strip()}", file=sys.stderr)
        return 1
    cases = args.cases or bench_cases(args.bench)
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    refused = False
    for threads in args.threads:
        load_before = run_quality.load_now()
        merged: dict = {"context": {}, "benchmarks": []}
        for case in cases:
            data = run_case(args.bench, case, threads, args, env)
            merged["context"] = merged["context"] or data["context"]
            merged["benchmarks"] += data["benchmarks"]
        load_after = run_quality.load_now()
        spread = run_quality.spread(run_quality.samples(merged))
        merged["context"].update(facts, commit=commit, threads=str(threads), load_before=load_before,
                                 load_after=load_after, spread=f"{spread:.4f}", tune=tune.stdout,
                                 command=" ".join(sys.argv))
        merged["context"].pop("executable", None)  # no path of this machine in a committed file
        rows = summarize(merged)
        print(f"\n{threads} thread{'s' if threads > 1 else ''}: load average {load_before} before, "
              f"{load_after} after; spread {100 * spread:.1f}%")
        print("| case | planner's variant | tessera/copy | fastest forced variant | planner/fastest | noise | "
              "verdict | oneDNN/copy | ahead of oneDNN |")
        print("|---|---|---|---|---|---|---|---|---|")
        fmt = lambda x: "n/a" if x is None else f"{x:.2f}"
        for r in rows:
            print(f"| `{r['case']}` | {r['planner']} | {fmt(r['copy_ratio'])} | {r['fastest'] or 'n/a'} | "
                  f"{fmt(r['planner_over_fastest'])} | {fmt(r['noise'])} | {verdict(r)} | {fmt(r['onednn_ratio'])} | "
                  f"{'n/a' if r['ahead_of_onednn'] is None else ('yes' if r['ahead_of_onednn'] else 'NO')} |")
        why = run_quality.why_not_quiet(merged["context"], spread)
        name = f"{date}-{facts['cpu_class']}-acceptance-{threads}t.json"
        if why:
            refused = True
            out = pathlib.Path(tempfile.gettempdir()) / name
            print(f"not published ({why}): kept in {out}", file=sys.stderr)
        else:
            out = pathlib.Path(args.out_dir) / name
            out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(merged, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {out}", file=sys.stderr)
    print(f"\n{time.monotonic() - started:.0f} s in all", file=sys.stderr)
    return 3 if refused else 0


if __name__ == "__main__":
    sys.exit(main())
