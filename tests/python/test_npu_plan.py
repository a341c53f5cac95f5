"""tessera.npu.Plan: the same report as `tessera npu plan --json`, the same refusals."""

import json
import os
import subprocess

import pytest

import tessera
from tessera import npu

SPEC = "npus=4,lmem=1024,align=128,banks=4"
PLAN = {"device": SPEC, "tensors": [
    {"name": "in", "shape": [1, 6, 1, 8], "dtype": "f32", "address": 0},
    {"name": "clash", "shape": [1, 2, 1, 8], "dtype": "f32", "address": 128},
    {"name": "w", "rows": 2, "cols": 40, "w": 10, "dtype": "f32", "address": "0x200"},
    {"name": "out", "shape": [1, 6, 2, 8], "dtype": "f32", "address": "auto"},
    {"name": "big", "shape": [16, 4, 1, 32], "dtype": "f32", "address": 0}],
    "ops": [{"name": "conv", "reads": ["in", "w"], "writes": ["out"]}]}
CLI = os.environ.get("TESSERA_CLI", "build/release/tessera")


def test_properties_are_the_parts_of_check():
    plan = npu.Plan(PLAN)
    report = plan.check()
    assert list(report) == ["summary", "plan", "tensors", "overlaps", "empty_block_reuse",
                            "bank_conflicts", "npus"]
    assert plan.tensors is report["tensors"] and plan.npus is report["npus"]
    assert [(o["a"], o["b"], o["npus"], o["first_npu"], o["last_npu"], o["bytes"])
            for o in plan.overlaps] == [("in", "clash", 2, 0, 1, 64)]
    assert not plan.clean and report["summary"]["overlapping_pairs"] == 1
    out = plan.tensors[3]
    assert out["fits"] and out["address"] == 256 and "placement" in out
    big = plan.tensors[4]
    assert big["slices"] == [{"dim": "N", "count": 2, "shape": [8, 4, 1, 32], "bytes_per_npu": 1024}]
    assert plan.placed["tensors"][3]["address"] == 256


def test_json_text_and_file_give_the_same_report(tmp_path):
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(PLAN))
    assert npu.Plan(json.dumps(PLAN)).check() == npu.Plan(str(path)).check() == npu.Plan(path).check()


@pytest.mark.skipif(not os.access(CLI, os.X_OK), reason="no tessera CLI (set TESSERA_CLI)")
def test_same_report_and_errors_as_the_cli(tmp_path):
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(PLAN))
    result = subprocess.run([CLI, "npu", "plan", str(path), "--json"], capture_output=True, text=True)
    assert json.loads(result.stdout) == npu.Plan(PLAN).check()
    bad = dict(PLAN, tensors=[dict(PLAN["tensors"][0], dtype="f33")])
    path.write_text(json.dumps(bad))
    cli_error = subprocess.run([CLI, "npu", "plan", str(path)], capture_output=True, text=True).stderr
    with pytest.raises(tessera.InvalidLayoutError) as caught:
        npu.Plan(bad)
    assert str(caught.value) in cli_error
    assert "tensor 'in', field 'dtype'" in str(caught.value)


def test_draw_writes_svg_and_html(tmp_path):
    plan = npu.Plan(PLAN)
    for name in ("map.svg", "map.html"):
        plan.draw(tmp_path / name)
        assert "OVERLAP" in (tmp_path / name).read_text()


def test_not_a_plan():
    with pytest.raises(TypeError):
        npu.Plan(42)


def test_tpu_mlir_final_mlir_read_through_the_library(tmp_path):
    """tpu-mlir's own plan (tests/fixtures/tpu_mlir_plans/): the report of `tessera npu plan
    FILE --json`, sizes agreeing with out_size, no overlap between tensors alive together."""
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "tpu_mlir_plans" / \
        "resblocks_bm1684x_bf16_final.mlir"
    plan = npu.Plan(path)
    report = plan.check()
    assert report["chip"] == "bm1684x"
    assert report["summary"]["placements"] == path.read_text().count("#tpu.lg<")
    assert all(t["bytes_per_npu"] == t["out_size"] for t in plan.tensors)
    assert plan.overlaps == [] and len(plan.bank_conflicts) == 2 and not plan.clean
    assert len(plan.groups) == 1 and len(plan.groups[0]["timesteps"]) == 4
    plan.draw(tmp_path / "plan.svg")
    assert "G0 T3" in (tmp_path / "plan.svg").read_text()
    bad = tmp_path / "bad_final.mlir"
    bad.write_text(path.read_text().replace('module.chip = "bm1684x"', 'module.chip = "bm0"'))
    with pytest.raises(tessera.InvalidLayoutError, match="no preset for chip 'bm0'"):
        npu.Plan(bad)
