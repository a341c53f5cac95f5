"""Hostile input through the CLI: refused with exit 2 and a clear `error:`, never a wrong
answer. (The Python side of the same table is tests/python/test_cli_parity.py.)"""

import numpy as np
import pytest


def convert_with_fill(tessera, tmp_path, dtype_text, fill, check=True):
    src = tmp_path / "in.bin"
    src.write_bytes(bytes(np.dtype({"f16": "f2", "s64": "i8", "u8": "u1", "s32": "i4", "f32": "f4"}[dtype_text]).itemsize))
    args = ["convert", "--from", f"{dtype_text}[1]", "--to", f"{dtype_text}[1]{{0:T(2)}}", "--fill", fill,
            str(src), str(tmp_path / "out.bin")]
    return tessera.run(*args) if check else tessera.fails(*args)


def test_f16_fill_rounds_once_like_numpy(tessera, tmp_path):
    """Regression: 1.000488281250001 went through float and became 0x3c00; NumPy gives 0x3c01."""
    convert_with_fill(tessera, tmp_path, "f16", "1.000488281250001")
    padding = np.fromfile(tmp_path / "out.bin", np.uint16)[1]
    assert padding == np.array([1.000488281250001], np.float16).view(np.uint16)[0] == 0x3C01


@pytest.mark.parametrize(
    "dtype, fill, why",
    [
        ("s64", "9223372036854775808", "out of range [-9223372036854775808, 9223372036854775807]"),
        ("u8", "-1", "out of range [0, 255]"),
        ("s32", "nan", "not an integer"),
        ("s32", "2.5", "not an integer"),
        ("f32", "1e39", "out of range (beyond the largest finite value)"),
    ],
)
def test_fill_values_that_do_not_fit_are_refused(tessera, tmp_path, dtype, fill, why):
    message = convert_with_fill(tessera, tmp_path, dtype, fill, check=False)
    assert message == f"error: fill value '{fill}' is not a {dtype} value: {why}\n"


def test_pred_with_32_bit_storage_converts_like_python(tessera, tmp_path):
    """XLA prints TPU preds as pred[..]{..:T(8,128)E(32)} (the layout explain --target tpu
    proposes); the CLI refused it while Python converted it."""
    data = np.array([[True, False, True], [False, False, True]])
    np.save(tmp_path / "p.npy", data)
    tessera.run("convert", "--to", "pred[2,3]{1,0:T(8,128)E(32)}", str(tmp_path / "p.npy"), str(tmp_path / "p.bin"))
    words = np.fromfile(tmp_path / "p.bin", np.uint32).reshape(8, 128)
    assert np.array_equal(words[:2, :3], data.astype(np.uint32)) and words.sum() == data.sum()
    tessera.run("convert", "--from", "pred[2,3]{1,0:T(8,128)E(32)}", str(tmp_path / "p.bin"), str(tmp_path / "back.npy"))
    assert np.array_equal(np.load(tmp_path / "back.npy"), data)


def test_signed_elements_widen_with_their_sign(tessera, tmp_path):
    (tmp_path / "s.bin").write_bytes(bytes([0xFF, 0x02]))
    tessera.run("convert", "--from", "s8[2]", "--to", "s8[2]{0:E(16)}", str(tmp_path / "s.bin"), str(tmp_path / "w.bin"))
    assert list(np.fromfile(tmp_path / "w.bin", np.int16)) == [-1, 2]


def test_messages_quote_whole_characters(tessera):
    """Regression: the parser quoted one byte of 'ÿ' (a lone 0xc3, not valid UTF-8)."""
    result = tessera.run("info", "bf16[32,256]{1,0:T(8,128)(2,ÿ1)}", check=False)
    assert result.returncode == 2  # text=True would already have failed to decode a lone 0xc3
    assert "found 'ÿ' (at column 29)" in result.stderr
    assert result.stderr.splitlines()[-1] == " " * 30 + "^"


def test_file_errors_say_why(tessera, tmp_path):
    message = tessera.fails("convert", "--from", "f32[1]", "--to", "f32[1]", str(tmp_path / "x.bin"), str(tmp_path / "y.bin"))
    assert message == f"error: cannot read '{tmp_path / 'x.bin'}': No such file or directory\n"
    message = tessera.fails("convert", "--from", "f32[1]", "--to", "f32[1]", str(tmp_path), str(tmp_path / "y.bin"))
    assert message == f"error: cannot read '{tmp_path}': it is a directory, not a file\n"


def test_explain_of_a_high_rank_shape_bounds_its_search_and_says_so(tessera):
    """Regression: rank-400 f32[1,...,1] took 13.5 s and 2.1 GB (rank cubed). Size-1 dims no
    longer move and at most 64 orders are tried; the report says what was left out."""
    report = tessera.json("explain", "f32[" + ",".join(["1"] * 400) + "]", "--target", "tpu", "--json")
    assert "the 400 size-1 dims stay in place" in report["suggestion_search"]
    report = tessera.json("explain", "f32[" + ",".join(["2"] * 30 + ["1"] * 370) + "]", "--json")
    assert report["suggestion_search"].startswith("tried 64 of 870 choices")
    assert tessera.json("explain", "f32[3,5]{1,0:T(2,2)}", "--json")["suggestion_search"] == ""


def test_rank_and_tile_depth_have_documented_limits(tessera, tmp_path):
    assert "tessera's rank limit is 1024" in tessera.fails("info", "f32[" + ",".join(["1"] * 1025) + "]")
    deep = "f32[4,4]{1,0:T" + "(2,2)" * 65 + "}"
    assert "tessera's tile depth limit is 64" in tessera.fails("explain", deep)
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + "1," * 16000 + "), }"
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    (tmp_path / "deep.npy").write_bytes(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + bytes(4))
    assert "limit" in tessera.fails("convert", "--to", "f32[1]", str(tmp_path / "deep.npy"), str(tmp_path / "o.bin"))


def test_negative_max_suggestions_is_refused(tessera):
    """Regression: --max-suggestions -1 was accepted (it wrapped to a huge size_t)."""
    assert "--max-suggestions" in tessera.fails("explain", "f32[3,5]", "--max-suggestions", "-1")
