"""The generated reference pages are what their generators make of the code now: the C++ API from
the public headers, the Python API from the installed package, the JSON outputs from the schemas,
and the performance tables from bench/results/ (the CLI page: tests/cli/test_cli_reference.py)."""
import pathlib

import pytest

import cpp_api
import json_outputs
import performance

REGENERATE = "regenerate with: python3 tools/docs/generate.py --tessera build/release/tessera"


def test_the_cpp_api_page_is_up_to_date():
    assert cpp_api.PAGE.read_text(encoding="utf-8") == cpp_api.render(), REGENERATE


def test_the_json_outputs_page_is_up_to_date():
    assert json_outputs.PAGE.read_text(encoding="utf-8") == json_outputs.render(), REGENERATE


def test_the_python_api_page_is_up_to_date():
    pytest.importorskip("tessera", reason="the Python API page is checked where the package is installed")
    import python_api

    assert python_api.PAGE.read_text(encoding="utf-8") == python_api.render(), (
        REGENERATE + " (with the Python that has tessera installed)")


def test_the_performance_tables_are_the_committed_results():
    runs = performance.load_runs()
    expected = performance.page_with(performance.generated(runs), runs)
    assert performance.PAGE.read_text(encoding="utf-8") == expected, "run: python3 tools/docs/performance.py"
    for cpu_class in performance.latest_by_class(runs):
        assert (performance.PLOTS / f"{cpu_class}.svg").is_file(), f"no plot for {cpu_class}: run tools/docs/performance.py"


def test_the_readme_claim_is_derived_from_the_quiet_results():
    runs = performance.load_runs()
    assert performance.README.read_text(encoding="utf-8") == performance.readme_with(runs), (
        "run: python3 tools/docs/performance.py")


def test_only_quiet_runs_are_published(tmp_path):
    def run(name, load_before, load_after, values):
        context = {"cpu_class": "zen3", "threads": "1", "date": "2026-11-27"}
        if load_before is not None:
            context.update(load_before=load_before, load_after=load_after)
        benchmarks = [{"run_name": f"BM_{kind}/f32_rowmajor_to_T8x128", "run_type": "iteration",
                       "bytes_per_second": v * (1 if kind == "Copy" else 1.1)}
                      for kind in ("Copy", "Relayout") for v in values]
        path = tmp_path / name
        path.write_text(performance.json.dumps({"context": context, "benchmarks": benchmarks}))
        return performance.Run(path)

    steady = [10.0, 10.1, 9.9, 10.0, 10.05]
    quiet = run("quiet.json", "0.20 0.3 0.4", "1.10 0.5 0.4", steady)
    busy = run("busy.json", "8.51 4.58 2.03", "1.0 1 1", steady)
    noisy = run("noisy.json", "0.2 0 0", "0.2 0 0", [10.0, 14.0, 6.0, 12.0, 8.0])
    unrecorded = run("unrecorded.json", None, None, steady)
    assert quiet.not_quiet is None
    assert "load average 8.51 before" in busy.not_quiet
    assert "spread" in noisy.not_quiet
    assert "no load average recorded" in unrecorded.not_quiet
    runs = [quiet, busy, noisy, unrecorded]
    assert performance.quiet(runs) == [quiet]
    assert "1.10-1.10 of the speed of a memory copy" in performance.claim(runs)
    assert "No quiet benchmark run is published yet" in performance.claim([busy, noisy, unrecorded])


def test_the_gallery_captions_are_the_commands_that_made_the_pictures():
    import sys

    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "browser"))
    import render_docs

    page = pathlib.Path(render_docs.DRAW_PAGE).read_text(encoding="utf-8")
    assert render_docs.gallery_markdown() in page, (
        "regenerate with: python3 tests/browser/render_docs.py --tessera build/release/tessera")
    for name, _, draw_args, _ in render_docs.PICTURES:
        assert (pathlib.Path(render_docs.ROOT) / "docs" / name).exists(), name
