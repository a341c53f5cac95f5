"""--target on every command that takes a shape, TESSERA_TARGET, `explain --list-targets`, and
XLA's own numbers (unpadded_bytes, its size words) through the real binary."""
import pathlib
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]

GENERATIONS = ["tpu-v2", "tpu-v3", "tpu-v4", "tpu-v5e", "tpu-v5p", "tpu-v6e", "tpu-v7x"]

# Layouts XLA printed (public OOM reports and HLO dumps; sources in
# tests/explain/public_xla_layouts_test.cpp): printed, generation, size, unpadded size.
PUBLIC = [
    ("s32[8388608,8,4]{2,1,0:T(8,128)}", "tpu", 32 * 2**30, 2**30),
    ("f32[1024,245,64]{1,2,0:T(8,128)}", "tpu", 64 * 2**20, 64225280),
    ("bf16[512,16,3072]{2,1,0:T(8,128)(2,1)}", "tpu-v3", 48 * 2**20, 48 * 2**20),
    ("f32[1280]{0:T(1024)}", "tpu", 8192, 5120),
    ("bf16[]{:T(512)(2,1)}", "tpu", 2048, 2),  # by the spec: (2,1) pads the one 512-tile row to 2
    ("pred[64,512,2048]{2,1,0:T(8,128)E(32)}", "tpu", 256 * 2**20, 64 * 2**20),
    ("pred[128,512]{0,1:T(8,128)(4,1)}", "tpu-v4", 64 * 1024, 64 * 1024),
    ("bf16[2048,1,2048,128]{0,1,3,2:T(4,128)(2,1)}", "tpu", 4 * 2**30, 2**30),
    ("bf16[1,6144]{1,0:T(2,128)(2,1)}", "tpu-v6e", 24 * 1024, 12 * 1024),
]


def untiled(printed):
    """The shape as a user would type it: the layout without tiles or E(n)."""
    head, layout = printed.split("{", 1)
    return head + "{" + layout.split(":", 1)[0] + "}"


@pytest.fixture(autouse=True)
def no_environment_target(monkeypatch):
    monkeypatch.delenv("TESSERA_TARGET", raising=False)


@pytest.mark.parametrize("printed,target,size,unpadded", PUBLIC)
def test_public_layouts_are_chosen_sized_and_round_trip(tessera, printed, target, size, unpadded):
    # The public reports are the 2020 era's evidence; they reproduce under it.
    out = tessera.json("explain", untiled(printed), "--target", target, "--xla-era", "2020", "--json")
    assert out["layout"] == printed
    assert out["size_bytes"] == size and out["unpadded_bytes"] == unpadded
    info = tessera.json("info", printed, "--json")
    assert info["canonical"] == printed
    assert info["size_bytes"] == size and info["unpadded_bytes"] == unpadded


def test_list_targets_prints_the_table(tessera):
    text = tessera.run("explain", "--list-targets").stdout
    for name in GENERATIONS:
        assert name in text
    assert "in this era tpu-v3" in text and "pytorch/xla#6674" in text
    assert "XLA era 2026" in text and "tpu is tpu-v5e" in text and "rank2_order" in text


def test_explain_defaults_to_tpu_for_an_untiled_shape(tessera):
    out = tessera.json("explain", "f32[1024,3]", "--json")
    assert out["target"] == "tpu-v5e" and out["xla_era"] == "2026"
    assert out["layout"] == "f32[1024,3]{0,1:T(4,128)}"
    assert out["size_bytes"] == 16 * 1024
    text = tessera.run("explain", "f32[1024,3]").stdout
    assert "target            tpu-v5e (XLA era 2026)" in text and "--target none" in text
    assert "Size: 16.0K, Unpadded size: 12.0K, Extra memory due to padding: 4.0K (1.3x expansion)" in text
    old = tessera.run("explain", "f32[1024,3]{1,0}").stdout
    assert "Size: 512.0K, Unpadded size: 12.0K, Extra memory due to padding: 500.0K (42.7x expansion)" in old
    literal = tessera.json("explain", "f32[1024,3]", "--target", "none", "--json")
    assert literal["size_bytes"] == 12 * 1024 and literal["target"] == "none"
    # A shape written with tiles is explained as written.
    assert tessera.json("explain", "F32[3,5]{1,0:T(2,2)}", "--json")["target"] == "none"


def test_environment_sets_the_target_once(tessera, monkeypatch):
    monkeypatch.setenv("TESSERA_TARGET", "tpu-v6e")
    assert tessera.json("explain", "bf16[64,256]", "--json")["layout"] == "bf16[64,256]{1,0:T(8,128)(2,1)}"
    assert tessera.json("info", "bf16[64,256]", "--json")["canonical"] == "bf16[64,256]{1,0:T(8,128)(2,1)}"
    monkeypatch.setenv("TESSERA_XLA_ERA", "2020")
    assert tessera.json("info", "bf16[64,256]", "--json")["canonical"] == "bf16[64,256]{1,0:T(16,128)(2,1)}"
    monkeypatch.setenv("TESSERA_XLA_ERA", "1999")
    assert "TESSERA_XLA_ERA" in tessera.fails("info", "f32[3]", "--target", "tpu")
    monkeypatch.delenv("TESSERA_XLA_ERA")
    assert tessera.json("explain", "bf16[64,256]", "--target", "tpu-v3", "--json")["target"] == "tpu-v3"
    monkeypatch.setenv("TESSERA_TARGET", "gpu")
    assert "TESSERA_TARGET" in tessera.fails("info", "f32[3]")


def test_info_keeps_the_literal_layout_and_adds_the_tpu_size(tessera):
    out = tessera.json("info", "f32[1024,3]", "--json")
    assert out["canonical"] == "f32[1024,3]{1,0}" and out["size_bytes"] == 12 * 1024
    assert out["unpadded_bytes"] == 12 * 1024
    assert out["tpu"]["layout"] == "f32[1024,3]{0,1:T(4,128)}"
    assert out["tpu"]["size_bytes"] == 16 * 1024 and out["tpu"]["target"] == "tpu-v5e"
    text = tessera.run("info", "f32[1024,3]").stdout
    assert "on a TPU" in text and "16.0K" in text
    written = tessera.json("info", "f32[1024,3]{1,0}", "--json")
    assert written["tpu"]["layout"] == "f32[1024,3]{1,0:T(8,128)}" and written["tpu"]["size_bytes"] == 512 * 1024
    assert "tpu" not in tessera.json("info", "f32[1024,3]{1,0:T(8,128)}", "--json")
    assert "tpu" not in tessera.json("info", "f32[1024,3]", "--target", "none", "--json")
    tiled = tessera.json("info", "f32[1024,3]", "--target", "tpu", "--json")
    assert tiled["canonical"] == "f32[1024,3]{0,1:T(4,128)}"


def test_index_and_unindex_take_a_target(tessera):
    assert tessera.lines("index", "f32[3,5]", "2,3") == ["13"]
    note = tessera.run("index", "f32[3,5]", "2,3").stderr
    assert note.startswith("note: on a TPU")
    # f32[3,5] on a TPU: T(4,128), element (2,3) at row 2 of the tile.
    assert tessera.lines("index", "f32[3,5]", "2,3", "--target", "tpu") == [str(2 * 128 + 3)]
    assert tessera.lines("unindex", "f32[3,5]", "259", "300", "--target", "tpu") == ["2,3", "padding"]
    # The layout the target made is named (on stderr: stdout stays one value per line).
    assert tessera.run("unindex", "f32[3,5]", "1", "--target", "tpu").stderr == (
        "note: layout used: f32[3,5]{1,0:T(4,128)}\n")


def test_draw_defaults_to_tpu_and_says_so(tessera, tmp_path):
    path = tmp_path / "t.svg"
    out = tessera.run("draw", "f32[3,5]", "-o", str(path)).stdout
    assert "f32[3,5]{1,0:T(4,128)}" in out and "target tpu-v5e (default" in out
    out = tessera.run("draw", "f32[3,5]", "--target", "none", "-o", str(path)).stdout
    assert "f32[3,5]{1,0})" in out and "target" not in out


def test_pred_bits_eight(tessera):
    out = tessera.json("explain", "pred[8,128]", "--pred-bits", "8", "--json")
    assert out["layout"] == "pred[8,128]{1,0:T(8,128)(4,1)}" and out["size_bytes"] == 1024
    assert tessera.json("explain", "pred[8,128]", "--target", "tpu-v4", "--json")["size_bytes"] == 1024


def test_convert_retiles_only_when_a_target_is_asked_for(tessera, tmp_path, monkeypatch):
    import numpy as np
    data = np.arange(15, dtype=np.float32).reshape(3, 5)
    np.save(tmp_path / "in.npy", data)
    literal = tmp_path / "literal.bin"
    tessera.run("convert", "--to", "f32[3,5]", str(tmp_path / "in.npy"), str(literal))
    assert literal.stat().st_size == 60  # as written: no re-tiling by default
    tiled = tmp_path / "tiled.bin"
    tessera.run("convert", "--to", "f32[3,5]", "--target", "tpu", str(tmp_path / "in.npy"), str(tiled))
    values = np.fromfile(tiled, dtype=np.float32)
    assert values.size == 4 * 128 and values[2 * 128 + 3] == data[2, 3]
    monkeypatch.setenv("TESSERA_TARGET", "tpu")
    back = tmp_path / "back.npy"
    tessera.run("convert", "--from", "f32[3,5]", str(tiled), str(back))
    assert np.array_equal(np.load(back), data)


def test_the_places_made_from_the_generation_table_are_up_to_date(tessera):
    sys.path.insert(0, str(REPO / "tools" / "docs"))
    import tpu_targets

    for path, text in tpu_targets.pages(str(tessera.path)).items():
        assert path.read_text(encoding="utf-8") == text, (
            f"{path.relative_to(REPO)} differs from the generation table: regenerate it with "
            "python3 tools/docs/generate.py --tessera build/release/tessera")


def test_the_target_help_lists_every_generation_of_the_table(tessera):
    names = [g["name"] for g in tessera.json("tpu-generations")["generations"]]
    assert names == GENERATIONS
    for command in (["explain"], ["draw"], ["info"], ["diff"], ["convert"]):
        help_text = " ".join(tessera.run(*command, "--help").stdout.split())
        assert "tpu, " + ", ".join(names) + ", none" in help_text, command
