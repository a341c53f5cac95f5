"""The XLA commands' contract: index, unindex, info (--json), and exit 2 with 'error:' for bad input."""
import random

import pytest

from spec_model import Model

FIGURE1 = "F32[3,5]{1,0:T(2,2)}"


def test_index_figure1(tessera):
    assert tessera.lines("index", FIGURE1, "2,3", "0,0", "1,4") == ["17", "0", "10"]


def test_index_scalar_uses_empty_index(tessera):
    assert tessera.lines("index", "f32[]{:T(256)}", "") == ["0"]


def test_unindex_figure1(tessera):
    assert tessera.lines("unindex", FIGURE1, "17", "9", "5", "0") == ["2,3", "padding", "0,3", "0,0"]


def test_alternative_packing_red_dot(tessera):
    assert tessera.lines("index", "f32[8,8]{1,0:T(2,4)(2,1,1,1)}", "6,5") == ["51"]


def test_info_json_figure1(tessera):
    info = tessera.json("info", FIGURE1, "--json")
    assert info["canonical"] == "f32[3,5]{1,0:T(2,2)}"
    assert info["dtype"] == "f32"
    assert info["dims"] == [3, 5]
    assert info["minor_to_major"] == [1, 0]
    assert info["tiles"] == [[2, 2]]
    assert info["physical_dims"] == [2, 3, 2, 2]
    assert info["logical_elements"] == 15
    assert info["physical_elements"] == 24
    assert info["size_bytes"] == 96
    assert info["padding_fraction"] == pytest.approx(9 / 24)


def test_info_text_mentions_the_steps(tessera):
    text = tessera.run("info", "bf16[32,256]{1,0:T(8,128)(2,1)}").stdout
    assert "bf16[32,256]{1,0:T(8,128)(2,1)}" in text
    assert "(4,2,4,128,2,1)" in text


def test_default_layout_and_tpu_sizes(tessera):
    assert tessera.json("info", "f32[4,5]", "--json")["canonical"] == "f32[4,5]{1,0}"
    assert tessera.json("info", "f32[]{:T(256)}", "--json")["size_bytes"] == 1024
    assert tessera.json("info", "pred[64,128]{1,0:T(32,128)(32,1)E(1)}", "--json")["size_bytes"] == 1024
    assert tessera.json("info", "s32[2048,1,128,128,4]{4,3,2,1,0:T(8,128)}", "--json")["size_bytes"] == \
        2048 * 128 * 16 * 8 * 128 * 4


def random_layout(rng):
    dtype = rng.choice(["f32", "bf16", "s8", "f64", "u16"])
    rank = rng.randint(1, 4)
    dims = [rng.randint(1, 7) for _ in range(rank)]
    m2m = list(range(rank))
    rng.shuffle(m2m)
    tiles = []
    for _ in range(rng.randint(0, 3)):
        length = rng.randint(1, rank + 1)
        tile = [rng.choice([1, 2, 3, 4, 8]) for _ in range(length)]
        if length > 1 and rng.random() < 0.2:
            tile[rng.randrange(length - 1)] = -1
        tiles.append(tile)
    text = f"{dtype}[{','.join(map(str, dims))}]{{{','.join(map(str, m2m))}"
    if tiles:
        text += ":T" + "".join("(" + ",".join("*" if t == -1 else str(t) for t in tile) + ")" for tile in tiles)
    if rng.random() < 0.2:
        text += (":" if not tiles else "") + f"L({rng.randint(2, 9)})"
    return text + "}"


def test_random_layouts_against_the_spec_model(tessera):
    rng = random.Random(1121)
    for _ in range(60):
        text = random_layout(rng)
        model = Model(text)
        indices = list(model.all_indices())
        out = tessera.lines("index", text, *[",".join(map(str, i)) for i in indices])
        expected = [str(model.linear_index(i)) for i in indices]
        assert out == expected, text
        info = tessera.json("info", text, "--json")
        assert info["physical_dims"] == model.physical_dims, text
        assert info["size_bytes"] == model.size_bytes, text
        # unindex is the inverse on data and says 'padding' elsewhere.
        by_offset = {model.linear_index(i): i for i in indices}
        offsets = list(range(model.physical))
        lines = tessera.lines("unindex", text, *map(str, offsets))
        for offset, line in zip(offsets, lines):
            want = ",".join(map(str, by_offset[offset])) if offset in by_offset else "padding"
            assert line == want, (text, offset)


@pytest.mark.parametrize("args", [
    ["index", "f32[3,5]{1,0:T(0,2)}", "0,0"],
    ["index", "f32[3,5]{1,0:T(-2,2)}", "0,0"],
    ["index", "f32[3,5]{1,0:T()}", "0,0"],
    ["index", "f32[3,5]{1,0:T(2,*)}", "0,0"],
    ["index", "f32[3,5]{1,0:L(0)}", "0,0"],
    ["index", "f32[3,5]{1,1}", "0,0"],
    ["index", "f32[3,5]{2,0}", "0,0"],
    ["info", "f32[4611686018427387904,4]"],
    ["info", "f32[3,5]{1,0}garbage"],
    ["index", FIGURE1, "3,0"],
    ["index", FIGURE1, "0,5"],
    ["index", FIGURE1, "1"],
    ["index", FIGURE1, "1,2,3"],
    ["index", FIGURE1, "a,b"],
    ["unindex", FIGURE1, "24"],
    ["unindex", FIGURE1, "-1"],
    ["unindex", FIGURE1, "x"],
    ["info"],
    ["frobnicate"],
])
def test_bad_input_exits_2_with_error(tessera, args):
    tessera.fails(*args)


def test_notation_errors_point_at_the_column(tessera):
    message = tessera.fails("info", "f32[3,5]{1,0:T(0,2)}")
    assert "column 16" in message
    assert "^" in message


def mutate(text, rng):
    pieces = "[]{}(),:*-0123456789TLESDPM fbsu"
    i = rng.randrange(len(text) + 1)
    kind = rng.randrange(3)
    if kind == 0 and text:
        return text[:i] + text[i + 1:]
    if kind == 1:
        return text[:i] + rng.choice(pieces) + text[i:]
    return text[:i] + rng.choice(pieces) + text[i + 1:]


def test_hundreds_of_mutated_inputs_never_crash(tessera):
    rng = random.Random(5)
    seeds = ["f32[3,5]{1,0:T(2,2)}", "bf16[32,256]{1,0:T(8,128)(2,1)}", "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}",
             "pred[64,128]{1,0:T(32,128)(32,1)E(1)}", "s4[100]{0:T(512)L(1024)E(4)S(1)}"]
    refused = 0
    for _ in range(300):
        text = rng.choice(seeds)
        for _ in range(rng.randint(1, 3)):
            text = mutate(text, rng)
        result = tessera.run("info", text, "--json", check=False)
        assert result.returncode in (0, 2), (text, result.returncode, result.stderr)
        if result.returncode == 2:
            assert result.stderr.startswith("error:"), (text, result.stderr)
            refused += 1
    assert refused > 100


def test_index_names_the_layout_a_target_made(tessera):
    result = tessera.run("index", "f32[1024,3]", "--target", "tpu", "1023,2")
    assert result.stdout == "3967\n"  # tile column 7 (7 x 512), row 2 of the tile (256), lane 127
    assert "note: layout used: f32[1024,3]{0,1:T(4,128)}" in result.stderr
    written = tessera.run("unindex", "f32[3,5]{1,0:T(2,2)}", "9")
    assert written.stderr == "" and written.stdout == "padding\n"
    # Read as written (XLA's literal meaning): the note is what a TPU would take instead.
    literal = tessera.run("index", "F32[3,5]", "2,3")
    assert "layout used" not in literal.stderr and literal.stdout == "13\n"
    assert literal.stderr.startswith("note: on a TPU")


def test_draw_chooses_a_readable_window_for_a_padded_shape_and_says_which(tessera, tmp_path):
    import re
    import xml.etree.ElementTree as ET

    svg = tmp_path / "small.svg"
    out = tessera.lines("draw", "bf16[3,20]", "-o", str(svg))
    assert out[0].startswith(f"wrote {svg} (bf16[3,20]{{1,0:T(")
    window = re.fullmatch(r"window 0:(\d+),0:(\d+) of the (\d+) x 128 grid \(its data and some padding\); "
                          r"--window 0:\3,0:128 draws all of it", out[1])
    assert window, out
    rows, cols = int(window.group(1)), int(window.group(2))
    assert 3 < rows <= 4 and 20 < cols <= 32  # the data, and a margin of padding
    root = ET.parse(svg).getroot()
    assert float(root.get("width")) <= 1200, "the memory side must fit a 1200 px browser window"
    cells = [r for r in root.iter("{http://www.w3.org/2000/svg}rect") if float(r.get("width", 0)) >= 20]
    assert cells, "cells are drawn at least 20 px wide"
    # Every element of the data is drawn, on both sides.
    text = svg.read_text()
    assert all(f'data-index="{i},{j}"' in text for i in range(3) for j in range(20))
    # A shape drawn whole says nothing more, and an explicit window is drawn as asked.
    assert len(tessera.lines("draw", "F32[3,5]{1,0:T(2,2)}", "-o", str(tmp_path / "f.svg"))) == 1
    assert len(tessera.lines("draw", "bf16[3,20]", "--window", "0:4,0:128", "-o", str(svg))) == 2
