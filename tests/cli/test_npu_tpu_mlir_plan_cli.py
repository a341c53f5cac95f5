"""`tessera npu plan MODEL_final.mlir`: tpu-mlir's own local-memory plans
(tests/fixtures/tpu_mlir_plans/, from tools/npu_oracle/tpu_mlir_plans.sh) read whole, their sizes
agreeing with the compiler's, no overlap between tensors alive together; the exit codes of
--check; malformed files refused with the line and the field."""
import json
import pathlib
import re
import shutil
import sys

import pytest

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "tpu_mlir_plans"
FILES = sorted(FIXTURES.glob("*_final.mlir"))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools" / "docs"))


def test_the_fixtures_are_there():
    assert len(FILES) == 16


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_placement_read_and_agreeing(tessera, path):
    import json_outputs  # the schema of `npu plan --json`

    text = path.read_text()
    out = tessera.run("npu", "plan", str(path), "--json").stdout
    json_outputs.validate_command_output(f"tessera npu plan {path.name} --json", out)
    report = json.loads(out)
    summary = report["summary"]
    assert summary["placements"] == text.count("#tpu.lg<")
    assert summary["groups"] == text.count('"tpu.Group"(')
    assert summary["size_mismatches"] == 0
    assert summary["overlapping_pairs"] == 0
    assert report["chip"] == re.search(r'module\.chip = "(\w+)"', text).group(1).lower()
    for group in report["groups"]:
        for t in group["tensors"]:
            assert t["bytes_per_npu"] == t["out_size"], (t["name"], t["line"])
            assert t["timesteps"], t["name"]
        steps = len(group["timesteps"])
        assert re.search(r"flow = \[([-\d, ]+)\]", text).group(1).count("-") == steps


def test_check_exits_1_on_bank_conflicts_0_when_clean(tessera, tmp_path):
    clean = tessera.run("npu", "plan", str(FIXTURES / "resblocks_bm1684x_f32_final.mlir"), "--check")
    assert clean.returncode == 0
    assert "tessera equals out_size on 15 of 15 tensors" in clean.stdout
    conflicted = tessera.run("npu", "plan", str(FIXTURES / "resblocks_bm1684x_bf16_final.mlir"),
                             "--check", check=False)
    assert conflicted.returncode == 1
    assert conflicted.stderr == "check failed: 2 bank conflicts\n"


def test_detected_by_content_and_drawn_over_timesteps(tessera, tmp_path):
    renamed = tmp_path / "stem.txt"
    shutil.copy(FIXTURES / "conv_stem_bm1688_bf16_final.mlir", renamed)
    picture = tmp_path / "stem.svg"
    out = tessera.run("npu", "plan", str(renamed), "-o", str(picture)).stdout
    assert out.startswith("tpu-mlir plan for bm1688")
    svg = picture.read_text()
    assert "G0 T0" in svg and "one column per timestep" in svg


def test_explain_and_draw_npu_take_the_plan_file_npu_plan_takes(tessera, tmp_path):
    """`explain npu --plan FILE` is `npu plan FILE`'s report, `draw npu --plan FILE -o PIC` its
    picture, for tpu-mlir's plans and JSON plans alike; the tensor options are refused beside it."""
    path = FIXTURES / "resblocks_bm1684_int8_sym_final.mlir"
    assert tessera.run("explain", "npu", "--plan", str(path)).stdout == \
        tessera.run("npu", "plan", str(path)).stdout
    assert tessera.json("explain", "npu", "--plan", str(path), "--json") == \
        tessera.json("npu", "plan", str(path), "--json")
    drawn, planned = tmp_path / "drawn.svg", tmp_path / "planned.svg"
    out = tessera.run("draw", "npu", "--plan", str(path), "-o", str(drawn)).stdout
    assert out == f"wrote {drawn} (the plan {path})\n"
    tessera.run("npu", "plan", str(path), "-o", str(planned))
    assert drawn.read_bytes() == planned.read_bytes()
    group = tmp_path / "group.json"
    group.write_text(json.dumps(tessera.json("npu", "plan", str(path), "--json")["groups"][0]["plan"]))
    assert tessera.run("explain", "npu", "--plan", str(group)).stdout == \
        tessera.run("npu", "plan", str(group)).stdout
    error = tessera.fails("explain", "npu", "--plan", str(path), "--device", "bm1684")
    assert "--plan FILE names its device and tensors" in error
    error = tessera.fails("draw", "npu", "--plan", str(path), "-o", str(drawn), "--window", "0:2,0:2")
    assert "a plan's picture (--plan) draws every tensor" in error
    error = tessera.fails("explain", "npu", "--shape", "1,2,3,4", "--dtype", "f32", "--address", "0")
    assert "--device is required" in error and "--plan FILE" in error


def test_group_plan_reads_back_as_a_json_plan(tessera, tmp_path):
    report = tessera.json("npu", "plan", str(FIXTURES / "resblocks_bm1688_f16_final.mlir"), "--json")
    plan = tmp_path / "group.json"
    plan.write_text(json.dumps(report["groups"][0]["plan"]))
    again = tessera.json("npu", "plan", str(plan), "--json")
    assert again["summary"]["overlapping_pairs"] == 0
    assert again["plan"]["timesteps"] == report["groups"][0]["plan"]["timesteps"]


def test_malformed_files_name_line_and_field(tessera, tmp_path):
    text = (FIXTURES / "conv_stem_bm1684x_f32_final.mlir").read_text()
    bad = tmp_path / "bad_final.mlir"
    bad.write_text(text.replace("out_size = 588", "out_size = 5x8", 1))
    line = 1 + text[: text.index("out_size = 588")].count("\n")
    err = tessera.fails("npu", "plan", str(bad))
    assert err == (f"error: tpu-mlir plan '{bad}': line {line}: field 'out_size': value '5x8' is "
                   "not an integer (decimal or 0x hex)\n")
    bad.write_text(text.replace('module.chip = "bm1684x"', 'module.chip = "bm0"'))
    assert "tessera has no preset for chip 'bm0'" in tessera.fails("npu", "plan", str(bad))
    bad.write_text(text[: text.index("}) {")])
    assert "the group's region is not closed" in tessera.fails("npu", "plan", str(bad))
    bad.write_bytes(b"module {\n  %1 = \"tpu.Group\"(%0) ({\n  }) {flow = [-1, 3]}\xff\n}\n")
    err = tessera.fails("npu", "plan", str(bad))
    assert "line 3: field 'flow': names op id 3, which the group does not have" in err
