"""Layout diffs and copies through the CLI: `tessera diff`, `tessera explain FILE --copies` on modules compiled by
the real TPU compiler (checked against an independent scan of the HLO text), and `tessera
mismatch` on real layout errors."""
import pathlib
import re
import subprocess

import pytest
from spec_model import Model

FIXTURES = pathlib.Path(__file__).resolve().parent.parent / "inputs" / "fixtures"
MODULES = sorted((FIXTURES / "tpu_hlo").glob("*.hlo"))
ERRORS = sorted((FIXTURES / "layout_errors").glob("*_*.txt"))


def test_diff_json_has_the_stable_keys(tessera):
    out = tessera.json("diff", "f32[4,256]{1,0}", "f32[4,256]{1,0:T(8,128)}", "--json")
    assert (out["elements"], out["moved_elements"], out["stayed_elements"]) == (1024, 896, 128)
    assert out["a"]["layout"] == "f32[4,256]{1,0}" and out["a"]["size_bytes"] == 4096
    assert out["b"]["layout"] == "f32[4,256]{1,0:T(8,128)}" and out["b"]["size_bytes"] == 8192
    assert out["b"]["padding_bytes"] == 4096
    assert [d["what"] for d in out["differences"]] == ["tiles"]
    assert out["tiles"]["blocks"] == 2 and out["plan"]["kernels"]
    assert out["cost"]["bytes_moved"] == 4096 + 8192 and out["cost"]["measured"] is False
    assert "estimate" in out["cost"]["basis"]


def test_diff_text_says_what_moves(tessera):
    text = tessera.run("diff", "f32[3,5]{1,0}", "f32[3,5]{0,1}").stdout
    assert "moved      12 (80.0%)" in text and "stayed     3 (20.0%)" in text
    assert "order" in text and "plan a -> b" in text and "cost on this host" in text


def test_diff_takes_npu_operands_and_jax_reprs(tessera):
    out = tessera.json("diff", "npu:npus=4,lmem=1024,align=64:1,8,2,4:f32:0",
                       "f32[1,8,2,4]{3,2,1,0}", "--json")
    assert out["a"]["family"] == "npu" and out["a"]["size_bytes"] == 4096
    assert out["stayed_elements"] == 8
    jax = tessera.json("diff", "Layout(major_to_minor=(1, 0), tiling=((8, 128),))",
                       "Layout(major_to_minor=(0, 1), tiling=((8, 128),))", "--shape", "f32[8,256]",
                       "--json")
    assert jax["a"]["layout"] == "f32[8,256]{0,1:T(8,128)}"
    assert jax["b"]["layout"] == "f32[8,256]{1,0:T(8,128)}"


def test_diff_measures_on_request(tessera):
    out = tessera.json("diff", "f32[256,256]{1,0}", "f32[256,256]{0,1}", "--json", "--measure",
                       "--threads", "1")
    assert out["cost"]["measured"] is True and out["cost"]["seconds"] > 0


def test_diff_draws_both_layouts(tessera, tmp_path):
    for name in ("d.svg", "d.html"):
        path = tmp_path / name
        out = tessera.run("diff", "f32[3,5]{1,0}", "f32[3,5]{1,0:T(2,2)}", "-o", str(path)).stdout
        assert f"wrote {path}" in out
        picture = path.read_text()
        assert picture.count('class="grid-cell a-cell') == 15
        assert picture.count('class="grid-cell b-cell') == 15
        assert 'data-index="2,3" data-offset-a="13" data-offset-b="17" data-moved="1"' in picture


def test_diff_prints_the_picture_path_escaped(tessera, tmp_path):
    path = tmp_path / "d\x01.svg"  # a control character must not reach the terminal
    out = tessera.run("diff", "f32[3,5]{1,0}", "f32[3,5]{0,1}", "-o", str(path)).stdout
    assert f"wrote {tmp_path}/d\\u0001.svg" in out and "\x01" not in out
    assert path.exists()


@pytest.mark.parametrize("args, words", [
    (("f32[4,256]{1,0}", "bf16[4,256]{1,0}"), "a diff compares two layouts of one array"),
    (("f32[4,256]{1,0}", "f32[256,4]{1,0}"), "a diff compares two layouts of one array"),
    (("Layout(major_to_minor=(0,), tiling=())", "Layout(major_to_minor=(0,), tiling=())"),
     "--shape"),
    (("f32[4]{0}", "f32[4]{0}", "-o", "x.png"), ".svg or .html"),
    (("f32[4]{0}", "npu:nope"), "npu:"),
])
def test_diff_refuses_with_a_reason(tessera, args, words):
    assert words in tessera.fails("diff", *args)


def split_instruction(line):
    """(name, result text, opcode, operand text) of an HLO instruction line, or None."""
    m = re.match(r"^\s*(?:ROOT )?%?([\w.\-]+) = (.*)$", line)
    if not m:
        return None
    name, rest = m.groups()
    depth, end = 0, 0
    for end, c in enumerate(rest):  # the result: one shape, or a parenthesised tuple
        depth += c in "({[" and 1 or 0
        depth -= c in ")}]" and 1 or 0
        if depth == 0 and c == " ":
            break
    result, rest = rest[:end], rest[end + 1:]
    m = re.match(r"([\w\-]+)\((.*)", rest)
    return (name, result, m.group(1), m.group(2)) if m else None


def independent_copies(text):
    """Every copy, copy-start and transpose of the module whose operand's layout differs from its
    result's, found by splitting the HLO text and sized with spec_model: {name: bytes}."""
    shapes, found = {}, {}
    array = r"[a-z0-9]+\[[\d,]*\](?:\{[^}]*\})?"
    for line in text.splitlines():
        parts = split_instruction(line)
        if not parts:
            continue
        name, result, opcode, operands = parts
        results = re.findall(array, result)
        if not result.startswith("(") and len(results) == 1:
            shapes[name] = results[0]
        if opcode not in ("copy", "copy-start", "transpose") or not results:
            continue
        operand = re.search(r"%([\w.\-]+)", operands).group(1)
        source = shapes.get(operand)
        destination = results[0]  # copy-start: its destination is tuple element {0}
        if source is None or (opcode != "transpose" and source == destination):
            continue
        found[name] = Model(destination).size_bytes
    return found


@pytest.mark.parametrize("module", MODULES, ids=lambda p: p.name)
def test_copies_finds_every_layout_changing_copy_and_transpose(tessera, module):
    out = tessera.json("explain", str(module), "--copies", "--json")
    got = {c["name"]: c["bytes"] for c in out["copies"]}
    for name, size in independent_copies(module.read_text()).items():
        assert got.get(name) == size, f"{module.name}: {name} ({size} bytes) missing or sized {got.get(name)}"
    sizes = [c["bytes"] for c in out["copies"]]
    assert sizes == sorted(sizes, reverse=True), "copies are not ranked largest first"
    for c in out["copies"]:
        assert set(c) >= {"name", "from", "to", "bytes", "kind", "fix"}


def test_copies_text_and_refusals(tessera):
    text = tessera.run("explain", str(FIXTURES / "tpu_hlo" / "v5e_transpose_into_add.hlo"),
                       "--copies").stdout
    assert "copy copy" in text and "fix: argument x.1" in text
    assert "HLO module" in tessera.fails("explain", "f32[8,128]", "--copies")


@pytest.mark.parametrize("error", ERRORS, ids=lambda p: p.name)
def test_mismatch_decodes_every_real_error(tessera, error):
    out = tessera.json("mismatch", str(error), "--json")
    (m,) = out["mismatches"]
    assert m["source"] in ("mosaic_operand", "xla_shape_check")
    for side in ("expected", "actual"):
        assert set(m[side]) >= {"role", "layout", "size_bytes", "padding_bytes", "tiles",
                                "memory_space", "minor_to_major"}
    assert m["differences"] and m["causes"] and m["fixes"] and m["error"] == ""


def test_mismatch_takes_the_message_itself_and_stdin(tessera):
    message = ("Failed to verify layout for Mosaic kernel operand 3: XLA layout does not match "
               "MLIR layout for an operand of shape f32[16,3072]: expected {1,0:T(128)S(1)}, got "
               "{1,0:T(8,128)S(1)}")
    (m,) = tessera.json("mismatch", message, "--json")["mismatches"]
    assert (m["operand"], m["expected"]["tiles"], m["actual"]["tiles"]) == (3, "T(128)", "T(8,128)")
    assert [d["what"] for d in m["differences"]] == ["tiles"]
    piped = subprocess.run([tessera.path, "mismatch", "--json"], input=message, text=True,
                           capture_output=True, timeout=60)
    assert piped.returncode == 0 and '"operand": 3' in piped.stdout
    assert "no layout-mismatch error" in tessera.run("mismatch", "all is well").stdout


def test_explain_of_a_pasted_error_decodes_it(tessera):
    out = tessera.json("explain", str(FIXTURES / "layout_errors" / "tpu_inference_2506.txt"),
                       "--json")
    assert out["layout_mismatches"][0]["expected"]["layout"] == "s32[0]{0:T(128)S(1)}"
