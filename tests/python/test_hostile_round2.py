"""Hostile input, round 2, from Python: the refusals of tests/cli/test_hostile_round2_cli.py, raised by the
package with the words the CLI prints (one validation in the library), and the bounded plan
report. Needs the CLI binary for the parity rows: TESSERA_CLI=path."""

import os
import subprocess

import pytest

import tessera
from tessera import npu

CLI = os.environ.get("TESSERA_CLI", "build/release/tessera")
needs_cli = pytest.mark.skipif(not os.access(CLI, os.X_OK), reason=f"no tessera CLI at {CLI}")
SPEC = "npus=4,lmem=1024,align=128,banks=4"


def cli(*args):
    return subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, timeout=60)


def plan_text(tensor_text=None, device="bm1684"):
    tensor_text = tensor_text or '{"name": "a", "shape": [1, 1, 1, 1], "dtype": "f32", "address": 0}'
    return f'{{"device": "{device}", "tensors": [{tensor_text}]}}'


PLANS = {
    "duplicate key": plan_text('{"name": "a", "shape": [1,1,1,1], "dtype": "f32", "address": 0, "address": 128}'),
    "NUL and garbage": plan_text() + "\0garbage",
    "align=3": plan_text(device="npus=4,lmem=1K,align=3"),
    "align larger than local memory": plan_text(device="npus=4,lmem=1K,align=2048"),
    "control character in a name": plan_text('{"name": "a\\u0001b", "shape": [1,1,1,1], "dtype": "f32", "address": 0}'),
    "NUL in a name": plan_text('{"name": "a\\u0000b", "shape": [1,1,1,1], "dtype": "f32", "address": 0}'),
}


@needs_cli
@pytest.mark.parametrize("name", sorted(PLANS))
def test_bad_plans_are_refused_alike(name, tmp_path):
    path = tmp_path / "plan.json"
    path.write_bytes(PLANS[name].encode())
    result = cli("npu", "plan", path)
    assert result.returncode == 2
    with pytest.raises(tessera.Error) as from_path:
        npu.Plan(path)
    assert result.stderr == f"error: {from_path.value}\n"
    if "\0" not in PLANS[name]:  # Python's str holds the NUL; the text path refuses it the same way
        with pytest.raises(tessera.Error) as from_text:
            npu.Plan(PLANS[name])
        assert result.stderr == f"error: plan '{path}': {from_text.value}\n"
    assert "\0" not in str(from_path.value)


@needs_cli
def test_a_fifo_is_refused_alike_without_blocking(tmp_path):
    fifo = tmp_path / "plan.json"
    os.mkfifo(fifo)
    result = cli("npu", "plan", fifo)
    with pytest.raises(tessera.IoError) as caught:
        npu.Plan(fifo)
    assert "it is a FIFO (named pipe), not a regular file" in str(caught.value)
    assert result.returncode == 2 and result.stderr == f"error: {caught.value}\n"


@needs_cli
@pytest.mark.parametrize("repr_", [
    "Layout(major_to_minor=(0, 1)) junk",
    "Layout(major_to_minor=(0, 1), tiling=((8, 128),)",
    "Layout(major_to_minor=(0, 1), tiling=((0, 128),))",
])
def test_jax_layouts_are_refused_alike(repr_):
    result = cli("explain", "f32[8,256]", "--jax-layout", repr_)
    with pytest.raises(tessera.Error) as caught:
        tessera.Layout.from_jax(repr_, (8, 256), "f32")
    assert result.returncode == 2 and result.stderr == f"error: {caught.value}\n"


@needs_cli
def test_notation_with_a_control_character_is_refused_alike():
    result = cli("info", "f32[2\x013]")
    with pytest.raises(tessera.NotationError) as caught:
        tessera.Layout("f32[2\x013]")
    assert "found '\\u0001'" in str(caught.value)
    assert result.returncode == 2 and result.stderr == f"error: {caught.value}\n"
    with pytest.raises(tessera.NotationError) as caught:
        tessera.Layout("f32[2\x003]")  # a NUL no longer cuts the message short
    assert "'\\u0000' (at column 6)\n  f32[2\\u00003]" in str(caught.value)


def test_the_plan_report_is_grouped_and_bounded():
    tensors = [{"name": f"t{i}", "shape": [1, 64, 1, 8], "dtype": "f32", "address": 0} for i in range(362)]
    plan = npu.Plan({"device": "bm1684", "tensors": tensors}, max_overlaps=5)
    assert plan.check()["summary"]["overlapping_pairs"] == 65341 and len(plan.overlaps) == 5
    assert plan.overlaps[0]["npus"] == 64 and not plan.clean
    with pytest.raises(tessera.OutOfRangeError, match="must be 0..100000"):
        npu.Plan({"device": "bm1684", "tensors": tensors[:2]}, max_overlaps=10**6)


def test_best_width_is_a_number_in_the_placed_plan():
    plan = npu.Plan({"device": SPEC, "tensors": [
        {"name": "m", "rows": 2, "cols": 40, "w": "best", "dtype": "f32", "address": 0}]})
    assert plan.tensors[0]["w"] == 10 and plan.tensors[0]["best_w"]
    assert plan.placed["tensors"][0]["w"] == 10
    assert plan.clean


def test_a_control_character_in_a_report_is_named():
    report = tessera.explain_input("Shape: f32[2\x013]{1,0}\n")
    assert report["arrays"][0]["shape"] == "f32[2\\u00013]{1,0}"
    assert "a control character (\\u0001)" in report["warnings"][0]
