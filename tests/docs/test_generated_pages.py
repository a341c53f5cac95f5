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
    expected = performance.page_with(performance.generated(runs))
    assert performance.PAGE.read_text(encoding="utf-8") == expected, "run: python3 tools/docs/performance.py"
    for cpu_class in performance.latest_by_class(runs):
        assert (performance.PLOTS / f"{cpu_class}.svg").is_file(), f"no plot for {cpu_class}: run tools/docs/performance.py"


def test_the_gallery_captions_are_the_commands_that_made_the_pictures():
    import sys

    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "browser"))
    import render_docs

    page = pathlib.Path(render_docs.DRAW_PAGE).read_text(encoding="utf-8")
    assert render_docs.gallery_markdown() in page, (
        "regenerate with: python3 tests/browser/render_docs.py --tessera build/release/tessera")
    for name, _, draw_args, _ in render_docs.PICTURES:
        assert (pathlib.Path(render_docs.ROOT) / "docs" / name).exists(), name
