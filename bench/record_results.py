#!/usr/bin/env python3
"""Runs the relayout benchmark as the performance page needs it and keeps the raw result:
Google Benchmark's JSON, with the CPU, the commit, the thread count and the command added to its
context, written to bench/results/<date>-<cpu class>-<threads>t.json.

    python3 bench/record_results.py --threads 1      # then --threads 2; ~15-30 minutes each
    python3 tools/docs/performance.py                # regenerates docs/performance.md's tables and plots

The command is the project's benchmark (docs/performance.md, "Method"): BM_Copy, BM_Relayout and
BM_OneDNN of every case at 64 MiB and 1 GiB, random interleaving, 5 repetitions, one process.
"""
import argparse
import datetime
import json
import os
import pathlib
import platform
import shlex
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[1]
FILTER = "^BM_(Copy|Relayout|OneDNN)/"


def cpu_facts() -> dict:
    """Vendor, family, model and a host class name ("zen5") from /proc/cpuinfo (the model name a
    VM reports is often just "AMD EPYC")."""
    facts = {"cpu_vendor": platform.machine(), "cpu_family": "", "cpu_model": "", "cpu_model_name": ""}
    flags = set()
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().split("\n"):
            key, _, value = (part.strip() for part in line.partition(":"))
            if key == "vendor_id":
                facts["cpu_vendor"] = value
            elif key == "cpu family" and not facts["cpu_family"]:
                facts["cpu_family"] = value
            elif key == "model" and not facts["cpu_model"]:
                facts["cpu_model"] = value
            elif key == "model name" and not facts["cpu_model_name"]:
                facts["cpu_model_name"] = value
            elif key == "flags" and not flags:
                flags = set(value.split())
    except OSError:
        pass
    facts["simd"] = "avx512" if "avx512f" in flags else "avx2" if "avx2" in flags else platform.machine()
    facts["cpu_class"] = cpu_class(facts["cpu_vendor"], facts["cpu_family"], facts["cpu_model"])
    return facts


def cpu_class(vendor: str, family: str, model: str) -> str:
    """AMD families by their Zen generation; anything else by vendor, family and model."""
    if not family.isdigit() or not model.isdigit():
        return platform.machine()
    f, m = int(family), int(model)
    if vendor == "AuthenticAMD":
        if f == 0x17:
            return "zen2" if m >= 0x30 else "zen1"
        if f == 0x19:
            return "zen4" if 0x10 <= m <= 0x1F or 0x60 <= m <= 0xAF else "zen3"
        if f == 0x1A:
            return "zen5"
    return f"{vendor.lower()}-{f}-{m}"


def shown(command: list[str]) -> list[str]:
    """The command as recorded: paths inside the repository relative to it."""
    out = []
    for word in command:
        path = pathlib.Path(word)
        out.append(str(path.relative_to(REPO)) if path.is_absolute() and path.is_relative_to(REPO) else word)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, required=True, help="TESSERA_BENCH_THREADS")
    parser.add_argument("--bench", default=str(REPO / "build" / "release" / "bench" / "tessera_bench"))
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--filter", default=FILTER)
    parser.add_argument("--out", help="default: bench/results/<date>-<cpu class>-<threads>t.json")
    args = parser.parse_args()

    facts = cpu_facts()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                            text=True).stdout.strip() or "unknown"
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO,
                           capture_output=True, text=True).stdout.strip()
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    out = pathlib.Path(args.out) if args.out else (
        REPO / "bench" / "results" / f"{date}-{facts['cpu_class']}-{args.threads}t.json")
    command = [args.bench, f"--benchmark_filter={args.filter}", "--benchmark_enable_random_interleaving=true",
               f"--benchmark_repetitions={args.repetitions}"]
    context = dict(facts, commit=commit + ("-dirty" if dirty else ""), threads=str(args.threads),
                   command=f"TESSERA_BENCH_THREADS={args.threads} " + " ".join(shlex.quote(c) for c in shown(command)),
                   load_before=" ".join(f"{x:.2f}" for x in os.getloadavg()))
    env = dict(os.environ, TESSERA_BENCH_THREADS=str(args.threads))
    print(context["command"], file=sys.stderr)
    result = subprocess.run(command + [f"--benchmark_out={out}", "--benchmark_out_format=json"], env=env)
    if result.returncode != 0:
        print("the benchmark failed", file=sys.stderr)
        return result.returncode
    # Google Benchmark's --benchmark_context cannot hold values with '=' or ',' (the command):
    # the facts join its own context (date, host, caches, build type) in the file instead.
    data = json.loads(out.read_text(encoding="utf-8"))
    data["context"].update(context, load_after=" ".join(f"{x:.2f}" for x in os.getloadavg()))
    # No path of this machine in a committed file: the executable relative to the repository.
    executable = pathlib.Path(data["context"].get("executable", ""))
    if executable.is_absolute() and executable.is_relative_to(REPO):
        data["context"]["executable"] = str(executable.relative_to(REPO))
    out.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
