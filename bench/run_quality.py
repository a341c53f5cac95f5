"""Whether a benchmark run was quiet enough to publish: the load average recorded before and after
it, and the spread of its repetitions. On a busy machine the copy ran at a third of its quiet
speed with a 26-34% spread (docs/notes/2026-11-27-size-classes.md); such runs are kept out of the
docs and out of the planner's acceptance.

Used by bench/planner_acceptance.py, bench/record_results.py and tools/docs/performance.py.
"""
from __future__ import annotations

import collections
import os
import statistics

MAX_LOAD = 1.5  # the 1-minute load average, before and after the run
MAX_SPREAD = 0.10  # the median over benchmarks of stdev / mean of their repetitions


def load_now() -> str:
    """The three load averages as the results record them: "0.12 0.30 0.41"."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def samples(report: dict) -> dict[str, list[float]]:
    """bytes_per_second of each benchmark's repetitions in Google Benchmark JSON."""
    out: dict[str, list[float]] = collections.defaultdict(list)
    for bench in report.get("benchmarks", []):
        if bench.get("run_type") == "iteration" and "bytes_per_second" in bench:
            out[bench["run_name"]].append(bench["bytes_per_second"])
    return out


def spread(values_by_name: dict[str, list[float]]) -> float:
    """The median over benchmarks of stdev / mean of their repetitions (0 with one repetition)."""
    spreads = [statistics.stdev(v) / statistics.mean(v) for v in values_by_name.values() if len(v) > 1]
    return statistics.median(spreads) if spreads else 0.0


def first_load(text: str | None) -> float | None:
    """The 1-minute load average of a recorded "0.12 0.30 0.41"; None when absent or unreadable."""
    try:
        return float(str(text).split()[0])
    except (ValueError, IndexError):
        return None


def why_not_quiet(context: dict, run_spread: float) -> str | None:
    """Why a run may not be published, or None when it may: the load it recorded before and after
    (a run without that record is not published) and its spread."""
    before, after = first_load(context.get("load_before")), first_load(context.get("load_after"))
    if before is None or after is None:
        return "no load average recorded before and after the run"
    if max(before, after) > MAX_LOAD:
        return f"load average {before:.2f} before and {after:.2f} after (at most {MAX_LOAD})"
    if run_spread > MAX_SPREAD:
        return f"spread {100 * run_spread:.0f}% between repetitions (at most {100 * MAX_SPREAD:.0f}%)"
    return None
