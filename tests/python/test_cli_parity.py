"""The package and the CLI are two faces of one library: same reports, same error messages.
Needs the CLI binary: TESSERA_CLI=path (scripts/test.sh passes build/release/tessera)."""

import json
import os
import subprocess

import numpy as np
import pytest

import tessera

CLI = os.environ.get("TESSERA_CLI", "build/release/tessera")
pytestmark = pytest.mark.skipif(
    not os.access(CLI, os.X_OK), reason=f"no tessera CLI at {CLI} (set TESSERA_CLI)"
)


def cli(*args):
    return subprocess.run([CLI, *args], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(
    "text",
    ["f32[3,5]{1,0:T(2,2)}", "bf16[32,256]{1,0:T(8,128)(2,1)}", "pred[100,3]{0,1:T(32,128)(32,1)E(1)L(64)}"],
)
def test_info_is_the_cli_report(text):
    layout = tessera.Layout(text)
    assert layout.info() == json.loads(cli("info", text, "--json").stdout)
    assert layout.info_text() == cli("info", text).stdout


@pytest.mark.parametrize(
    "text", ["f32[3,5]{1,0:T(0,2)}", "f32[3,5", "F32[3,5]{1,0:T(2,2)L(0)}", "f32[3,5]{1,0,2}"]
)
def test_errors_carry_the_cli_message(text):
    result = cli("info", text)
    assert result.returncode == 2
    with pytest.raises(tessera.Error) as caught:
        tessera.Layout(text)
    assert result.stderr == f"error: {caught.value}\n"


def test_index_errors_carry_the_cli_message():
    result = cli("index", "f32[3,5]{1,0:T(2,2)}", "1,7")
    with pytest.raises(tessera.OutOfRangeError) as caught:
        tessera.Layout("f32[3,5]{1,0:T(2,2)}").linear_index((1, 7))
    assert result.stderr == f"error: {caught.value}\n"


def test_npu_info_is_the_cli_report():
    from tessera import npu

    args = ["--device", "bm1684", "--shape", "4,100,7,7", "--dtype", "f16", "--address", "0x8000", "--layout", "compact"]
    tensor = npu.Tensor("bm1684", (4, 100, 7, 7), "f16", address=0x8000, layout="compact")
    assert tensor.info() == json.loads(cli("npu", "info", *args, "--json").stdout)
    result = cli("npu", "info", "--device", "bm1684", "--shape", "4,100,7,7", "--dtype", "s16", "--address", "0", "--layout", "aligned", "--mode", "4N")
    with pytest.raises(tessera.Error) as caught:
        npu.Tensor("bm1684", (4, 100, 7, 7), "s16", mode="4N")
    assert result.returncode == 2 and result.stderr == f"error: {caught.value}\n"


def test_npu_matrix_best_w_is_the_cli_report():
    from tessera import npu

    report = json.loads(cli("npu", "matrix", "--device", "bm1684", "--rows", "3", "--cols", "1000", "--dtype", "f32",
                            "--address", "0", "--best-w", "--json").stdout)
    assert npu.Matrix("bm1684", 3, 1000, "f32").info() == report


@pytest.mark.parametrize(
    "shape, target", [("s32[2048,1,128,128,4]", "tpu"), ("f32[3,5]{1,0:T(2,2)}", "none"), ("pred[100,3]", "tpu")]
)
def test_explain_is_the_cli_report(shape, target):
    report = json.loads(cli("explain", shape, "--target", target, "--json").stdout)
    assert tessera.explain(shape, target=target) == report


def test_npu_explain_is_the_cli_report():
    from tessera import npu

    args = ["--device", "bm1684", "--shape", "4,100,7,7", "--dtype", "f16", "--address", "0x8000", "--layout", "compact"]
    tensor = npu.Tensor("bm1684", (4, 100, 7, 7), "f16", address=0x8000, layout="compact")
    assert tensor.explain() == json.loads(cli("explain", "npu", *args, "--json").stdout)


# ONE table of hostile inputs; each row is refused by the CLI and by Python with the same
# words (the CLI prints "error: " + the Python exception's message). Rows: (id, CLI arguments
# after the input/output files are known, the Python call).
def _fill_row(dtype, fill_text, python_fill, layout_suffix="{0:T(2)}"):
    layout = f"{dtype}[1]{layout_suffix}"

    def run_cli(tmp):
        src = tmp / "in.bin"
        src.write_bytes(bytes(tessera.Layout(f"{dtype}[1]").size_bytes))
        return cli("convert", "--from", f"{dtype}[1]", "--to", layout, "--fill", fill_text, str(src), str(tmp / "o.bin"))

    def run_python():
        tessera.to_physical(np.zeros(1, tessera.numpy_dtype(dtype)), layout, fill=python_fill)

    return run_cli, run_python


def _text_row(text):
    return (lambda tmp: cli("info", text)), (lambda: tessera.Layout(text))


def _npu_row(layout):
    args = ["--device", "npus=5,lmem=1024,align=16", "--shape", "2,5,11,4", "--dtype", "f32", "--address", "0"]
    return (lambda tmp: cli("npu", "info", *args, "--layout", layout)), (
        lambda: tessera.npu.Tensor("npus=5,lmem=1024,align=16", (2, 5, 11, 4), "f32", layout=layout)
    )


HOSTILE_INPUTS = {
    "fill u8 300": _fill_row("u8", "300", 300),
    "fill u8 -1": _fill_row("u8", "-1", -1),
    "fill s32 NaN": _fill_row("s32", "nan", float("nan")),
    "fill s32 2.5": _fill_row("s32", "2.5", 2.5),
    "fill f32 1e39": _fill_row("f32", "1e+39", 1e39),
    "fill pred 2": _fill_row("pred", "2", 2),
    "fill s64 2^63": _fill_row("s64", "9223372036854775808", 2**63),
    "fill f16 overflow": _fill_row("f16", "65520.0", 65520.0),
    "half a UTF-8 character": _text_row("bf16[32,256]{1,0:T(8,128)(2,ÿ1)}"),
    "rank above the limit": _text_row("f32[" + ",".join(["1"] * 1025) + "]"),
    "tile depth above the limit": _text_row("f32[4,4]{1,0:T" + "(2,2)" * 65 + "}"),
    # An axis of extent 1 never reaches its stride, but its byte value is reported (CI's fuzzer).
    "npu stride whose bytes overflow": _npu_row("strides=141,5600000000000100000,116,2"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_INPUTS))
def test_hostile_inputs_are_refused_alike(name, tmp_path):
    run_cli, run_python = HOSTILE_INPUTS[name]
    result = run_cli(tmp_path)
    assert result.returncode == 2
    with pytest.raises(tessera.Error) as caught:
        run_python()
    assert result.stderr == f"error: {caught.value}\n"


def test_plan_too_large_to_check_is_refused_alike(tmp_path):
    # 300 tensors on 65536 NPUs: every pair on every NPU took 68 s and 3.7 GB before the bound.
    tensors = [
        {"name": f"t{i}", "shape": [1, 1, 1, 1], "dtype": "f32", "address": 64 * i} for i in range(300)
    ]
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"device": "npus=65536,lmem=1048576,align=64", "tensors": tensors}))
    result = cli("npu", "plan", str(plan))
    with pytest.raises(tessera.Error) as caught:
        tessera.npu.Plan(str(plan)).check()
    assert "44850 tensor pairs on each of 65536 NPUs" in str(caught.value)
    assert result.returncode == 2 and result.stderr == f"error: {caught.value}\n"


def test_plan_json_number_too_large_is_refused_alike(tmp_path):
    # nlohmann's out_of_range (not a parse_error) once escaped the plan reader (fuzz_npu_plan).
    plan = tmp_path / "plan.json"
    plan.write_text('{"device": 1e400}')
    result = cli("npu", "plan", str(plan))
    with pytest.raises(tessera.Error) as caught:
        tessera.npu.Plan(str(plan))
    assert "not valid JSON" in str(caught.value)
    # A path goes through the CLI's own reader, prefix and all.
    assert result.returncode == 2 and result.stderr == f"error: {caught.value}\n"


def test_convert_file_writes_what_the_cli_writes(tmp_path):
    rng = np.random.default_rng()
    array = rng.standard_normal((37, 200)).astype(np.float32)
    np.save(tmp_path / "x.npy", array)
    tiled = "f32[37,200]{1,0:T(8,128)}"
    assert tessera.convert_file(tmp_path / "x.npy", tmp_path / "py.tpu", destination=tiled, fill=1.5) == tiled
    result = cli("convert", "--to", tiled, "--fill", "1.5", str(tmp_path / "x.npy"), str(tmp_path / "cli.tpu"))
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "py.tpu").read_bytes() == (tmp_path / "cli.tpu").read_bytes()
    # And back, into a .npy file: the same array.
    seen = []
    tessera.convert_file(tmp_path / "py.tpu", tmp_path / "back.npy", tiled,
                         progress=lambda done, total: seen.append((done, total)))
    np.testing.assert_array_equal(np.load(tmp_path / "back.npy"), array)
    assert seen[-1] == (37 * 200 * 4, 37 * 200 * 4)


@pytest.mark.parametrize("source, destination, size", [
    ("f32[5,5]{1,0}", "f32[5,5]{0,1}", 99),          # the wrong size
    ("f32[5,5]{1,0}", "s32[5,5]{1,0}", 100),         # another element type
    ("", "f32[5,5]{0,1}", 100),                      # a raw file without its layout
])
def test_convert_file_refuses_with_the_cli_words(tmp_path, source, destination, size):
    (tmp_path / "in.raw").write_bytes(bytes(size))
    args = ["convert", "--to", destination, str(tmp_path / "in.raw"), str(tmp_path / "out.raw")]
    result = cli(args[0], *(["--from", source] if source else []), *args[1:])
    assert result.returncode == 2
    with pytest.raises(tessera.Error) as caught:
        tessera.convert_file(tmp_path / "in.raw", tmp_path / "out.raw", source or None, destination)
    assert result.stderr == f"error: {caught.value}\n"
    assert not (tmp_path / "out.raw").exists()
