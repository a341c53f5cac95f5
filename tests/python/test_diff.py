"""tessera.diff against an independent index-map model: the elements that move are
exactly those whose byte offset (bit offset below a byte) differs between the two layouts, as the
pure-NumPy model of the spec (reference_layout.py) and of the NPU formulas (test_npu.py) place
them; each side's bytes as the model sizes them."""

from __future__ import annotations

import json
import os
import subprocess

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import reference_layout as ref
import tessera
from strategies import DTYPES, layout_specs, tiles
from test_npu import model_place


def storage_bits(spec: ref.LayoutSpec) -> int:
    return spec.element_bits or DTYPES[spec.dtype][0]


def model_size_bytes(spec: ref.LayoutSpec) -> int:
    return -(-len(ref.physical_sources(spec)) * storage_bits(spec) // 8)


def model_moved(a: ref.LayoutSpec, b: ref.LayoutSpec) -> int:
    """Elements whose bit position differs: offset x bits on each side."""
    pa = ref.linear_indices(a).astype(object) * storage_bits(a)
    pb = ref.linear_indices(b).astype(object) * storage_bits(b)
    return int(np.count_nonzero(pa != pb))


@st.composite
def layout_pairs(draw):
    """Two random layouts of one array (same type and dims)."""
    a = draw(layout_specs(max_rank=3, max_dim=12))
    rank = len(a.dims)
    levels = draw(st.integers(0, 2))
    tile_list = tuple(draw(tiles(max(rank, 1))) for _ in range(levels))
    _, e_values = DTYPES[a.dtype]
    b = ref.LayoutSpec(a.dtype, a.dims, tuple(draw(st.permutations(range(rank)))), tile_list,
                       draw(st.sampled_from([1, 1, 2, 8])),
                       draw(st.sampled_from((None,) + e_values)))
    return a, b


def check(a: ref.LayoutSpec, b: ref.LayoutSpec) -> dict:
    out = tessera.diff(a.text(), b.text())
    assert out["elements"] == int(np.prod(a.dims, dtype=np.int64))
    assert out["moved_elements"] == model_moved(a, b), (a.text(), b.text())
    assert out["stayed_elements"] == out["elements"] - out["moved_elements"]
    assert out["a"]["size_bytes"] == model_size_bytes(a)
    assert out["b"]["size_bytes"] == model_size_bytes(b)
    return out


@given(layout_pairs())
def test_random_pairs_move_what_the_model_moves(pair):
    a, b = pair
    try:
        tessera.Layout.parse(a.text()), tessera.Layout.parse(b.text())
    except tessera.Error:
        return  # a draw tessera refuses (an over-large or invalid tile): not a pair to diff
    check(a, b)


@pytest.mark.parametrize("a, b", [
    # tiled / untiled
    (ref.LayoutSpec("f32", (300, 260), (1, 0)), ref.LayoutSpec("f32", (300, 260), (1, 0), ((8, 128),))),
    # transposed
    (ref.LayoutSpec("f32", (257, 130), (1, 0), ((8, 128),)), ref.LayoutSpec("f32", (257, 130), (0, 1), ((8, 128),))),
    (ref.LayoutSpec("s32", (64, 3, 40), (2, 1, 0)), ref.LayoutSpec("s32", (64, 3, 40), (0, 2, 1))),
    # bf16 packings
    (ref.LayoutSpec("bf16", (40, 300), (1, 0), ((8, 128), (2, 1))), ref.LayoutSpec("bf16", (40, 300), (1, 0), ((8, 128),))),
    (ref.LayoutSpec("bf16", (40, 300), (1, 0), ((16, 128), (2, 1))), ref.LayoutSpec("bf16", (40, 300), (0, 1), ((8, 128), (2, 1)))),
    (ref.LayoutSpec("s8", (70, 200), (1, 0), ((32, 128), (4, 1))), ref.LayoutSpec("s8", (70, 200), (1, 0))),
    # sub-byte elements: positions compared in bits
    (ref.LayoutSpec("s4", (9, 300), (1, 0), ((8, 128),), element_bits=4), ref.LayoutSpec("s4", (9, 300), (1, 0))),
    (ref.LayoutSpec("pred", (33, 40), (1, 0), ((32, 128), (32, 1)), element_bits=1), ref.LayoutSpec("pred", (33, 40), (0, 1))),
])
def test_held_out_style_pairs(a, b):
    check(a, b)


def test_large_arrays_are_exact():
    a = ref.LayoutSpec("f32", (1024, 1000), (1, 0))
    b = ref.LayoutSpec("f32", (1024, 1000), (0, 1), ((8, 128),))
    out = check(a, b)
    assert out["counting"].startswith("closed form")


@pytest.mark.parametrize("npus, lmem, align, layout, dims, address, order", [
    (4, 1024, 64, "aligned", (2, 7, 3, 5), 0, (3, 2, 1, 0)),
    (4, 4096, 128, "compact", (1, 9, 4, 6), 4096 + 256, (3, 2, 1, 0)),
    (8, 2048, 64, "aligned", (3, 5, 2, 3), 2 * 2048, (1, 3, 2, 0)),
])
def test_npu_operands_move_what_the_spec_formulas_move(npus, lmem, align, layout, dims, address, order):
    device = f"npus={npus},lmem={lmem},align={align}"
    npu_text = f"npu:{device}:{','.join(map(str, dims))}:f32:{address}:{layout}"
    xla = ref.LayoutSpec("f32", dims, order)
    out = tessera.diff(npu_text, xla.text())
    indices = np.indices(dims).reshape(4, -1).T
    npu_bits = np.array([(p * lmem + o) * 8 for p, o in
                         (model_place(npus, lmem, align, 4, dims, layout, address, tuple(i))
                          for i in indices.tolist())], dtype=object)
    xla_bits = ref.linear_indices(xla).reshape(-1).astype(object) * 32
    assert out["moved_elements"] == int(np.count_nonzero(npu_bits != xla_bits))
    assert out["a"]["size_bytes"] == npus * lmem  # the whole local memory image
    assert out["b"]["size_bytes"] == int(np.prod(dims)) * 4


def test_jax_layouts_and_tessera_layouts_are_sides():
    layout = tessera.Layout.parse("f32[8,256]{1,0}")
    out = tessera.diff(layout, "Layout(major_to_minor=(0, 1), tiling=((8, 128),))")
    assert out["b"]["layout"] == "f32[8,256]{1,0:T(8,128)}"
    assert out["moved_elements"] == model_moved(ref.LayoutSpec("f32", (8, 256), (1, 0)),
                                                ref.LayoutSpec("f32", (8, 256), (1, 0), ((8, 128),)))


def test_diff_is_the_cli_report(tmp_path):
    cli = os.environ.get("TESSERA_CLI", "tessera")
    args = ["f32[300,5]{1,0}", "f32[300,5]{0,1:T(8,128)}"]
    try:
        printed = subprocess.run([cli, "diff", *args, "--json"], capture_output=True, text=True,
                                 timeout=60, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("no tessera CLI to compare with")
    from_cli, from_python = json.loads(printed), tessera.diff(*args)
    for report in (from_cli, from_python):  # timings differ run to run
        report["cost"].pop("seconds"), report["cost"].pop("copy_gb_per_second"), report["cost"].pop("basis")
    assert from_python == from_cli


def test_diff_refusals_are_the_cli_errors(tmp_path):
    with pytest.raises(tessera.InvalidLayoutError, match="one array"):
        tessera.diff("f32[4,256]{1,0}", "bf16[4,256]{1,0}")
    with pytest.raises(tessera.Error):
        tessera.diff("f32[4]{0}", "f32[4]{0}", picture=tmp_path / "x.png")
    tessera.diff("f32[3,5]{1,0}", "f32[3,5]{1,0:T(2,2)}", picture=tmp_path / "d.svg")
    assert 'data-moved="1"' in (tmp_path / "d.svg").read_text()


def test_copies_and_mismatches_from_python():
    module = ("HloModule m\nENTRY %main (p: f32[512,256]) -> f32[512,256] {\n"
              "  %p = f32[512,256]{1,0:T(8,128)} parameter(0)\n"
              "  ROOT %copy = f32[512,256]{0,1:T(8,128)} copy(%p)\n}\n")
    (copy,) = tessera.explain_input(module, copies=True)["copies"]
    assert (copy["name"], copy["bytes"]) == ("copy", 512 * 256 * 4)
    (m,) = tessera.layout_mismatches(
        "XLA layout ({0:S(1)}) does not match Mosaic layout ({0:T(128)S(1)}) for an operand of "
        "shape s32[0].")["mismatches"]
    assert m["expected"]["layout"] == "s32[0]{0:T(128)S(1)}" and m["actual"]["tiles"] == "none"
