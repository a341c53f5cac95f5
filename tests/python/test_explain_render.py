"""Layout.explain / tessera.explain / tpu_layout (the explain library) and the pictures
(to_svg, to_html, save, the Jupyter hooks)."""

import xml.etree.ElementTree as ElementTree

import ml_dtypes
import numpy as np
import pytest

import tessera


def expected_tpu_tiles(dtype, second_minor):
    """The spec's "Examples of tiling formats", written out independently for rank-2 shapes."""
    rows = 2 if second_minor <= 2 else 4 if second_minor <= 4 else 8
    if dtype in ("f32", "s32", "u32"):
        return f"T({rows},128)"
    if dtype in ("bf16", "f16", "s16", "u16"):
        # A 16-bit second minor of 1 takes 4 rows on `tpu` (tpu-v3), as XLA printed
        # bf16[2048,1,2048,128]{0,1,3,2:T(4,128)(2,1)} (pytorch/xla#6674); it was 2 before.
        return f"T({4 if second_minor == 1 else max(rows, 2)},128)(2,1)"
    if dtype in ("s8", "u8"):
        return f"T({max(rows, 4)},128)(4,1)"
    raise AssertionError(dtype)


@pytest.mark.parametrize("dtype", ["f32", "s32", "bf16", "f16", "s8", "u8"])
@pytest.mark.parametrize("second_minor", [1, 2, 3, 4, 5, 8, 9])
def test_tpu_layout_follows_the_spec_table(dtype, second_minor):
    # The 2020 era's profile (the spec's table); the 2026 compiler is test_tpu_compiler_live.py's.
    layout = tessera.tpu_layout(dtype, (second_minor, 300), "tpu", xla_era="2020")
    assert str(layout) == f"{dtype}[{second_minor},300]{{1,0:{expected_tpu_tiles(dtype, second_minor)}}}"


def test_tpu_layout_takes_numpy_dtypes_orders_and_pred_options():
    assert str(tessera.tpu_layout(ml_dtypes.bfloat16, (32, 256))) == "bf16[32,256]{1,0:T(8,128)(2,1)}"
    # The compiler orders a device array's dims: f32[256,3] is stored with dim 0 minor.
    assert str(tessera.tpu_layout(np.float32, (256, 3))) == "f32[256,3]{0,1:T(4,128)}"
    assert str(tessera.tpu_layout(np.float32, (256, 3), "tpu-v4")) == "f32[256,3]{0,1:T(4,128)}"
    # A fixed order keeps it: physical (256, 3) has second minor 256 -> (8,128).
    assert str(tessera.tpu_layout(np.float32, (256, 3), minor_to_major=(1, 0))) == "f32[256,3]{1,0:T(8,128)}"
    assert str(tessera.tpu_layout(np.float32, (256, 3), (1, 0))) == "f32[256,3]{1,0:T(8,128)}"  # older call
    assert str(tessera.tpu_layout(bool, (64, 64))) == "pred[64,64]{1,0:T(32,128)(4,1)}"  # whole 32-row tiles
    assert str(tessera.tpu_layout(bool, (64, 64), "tpu-v3", xla_era="2020")) == "pred[64,64]{1,0:T(8,128)E(32)}"
    one_bit = tessera.tpu_layout("pred", (64, 64), pred_one_bit=True, xla_era="2020")
    assert str(one_bit) == "pred[64,64]{1,0:T(32,128)(32,1)E(1)}"
    with pytest.raises(tessera.Error):
        tessera.tpu_layout("f32", (3, 0, -1))


def test_explain_the_padding_heavy_tpu_shape():
    # Its order written, as a program's intermediate (a device array of these dims has no padding).
    report = tessera.explain("s32[2048,1,128,128,4]{4,3,2,1,0}", target="tpu")
    assert report["layout"] == "s32[2048,1,128,128,4]{4,3,2,1,0:T(8,128)}"
    assert report["logical_bytes"] == 2048 * 128 * 128 * 4 * 4
    assert report["size_bytes"] == 32 * report["logical_bytes"]
    best = report["suggestions"][0]
    assert best["size_bytes"] == report["logical_bytes"]
    sizes = [s["size_bytes"] for s in report["suggestions"]]
    assert sizes == sorted(sizes)


def test_layout_explain_is_the_report_of_its_canonical_text():
    layout = tessera.Layout("f32[3,5]{1,0:T(2,2)}")
    report = layout.explain()
    assert report["layout"] == str(layout) and report["size_bytes"] == 96
    assert report["padding_fraction"] == pytest.approx(0.375)
    assert report == tessera.explain("f32[3,5]{1,0:T(2,2)}")
    with pytest.raises(tessera.InvalidLayoutError, match="target"):
        layout.explain(target="gpu")


def test_svg_shows_figure1_cell_2_3_as_17():
    layout = tessera.Layout("f32[3,5]{1,0:T(2,2)}")
    svg = layout.to_svg()
    root = ElementTree.fromstring(svg.encode())
    cells = [g for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("data-index") == "2,3"]
    assert cells, "no drawing of element (2,3)"
    texts = ["".join(t.itertext()) for cell in cells for t in cell.iter("{http://www.w3.org/2000/svg}text")]
    assert "17" in texts
    assert svg.endswith(layout._repr_svg_())  # the notebook gets the <svg> without the XML declaration
    html = layout._repr_html_()
    assert "<svg" in html and "http://" not in html.replace("http://www.w3.org", "")


def test_pictures_of_large_layouts_stay_small_and_windows_work(tmp_path):
    layout = tessera.Layout("bf16[4096,8192]{1,0:T(8,128)(2,1)}")
    svg = layout.to_svg(window="0:16,0:32", mark=[6, 5])
    assert len(svg) < 5_000_000  # a window, never the whole 64 MiB array
    ElementTree.fromstring(svg.encode())
    layout.save(str(tmp_path / "layout.svg"))
    layout.save(str(tmp_path / "layout.html"), window="0:8,0:8")
    assert (tmp_path / "layout.html").read_text().lstrip().lower().startswith("<!doctype html")
    with pytest.raises(tessera.InvalidLayoutError):
        layout.save(str(tmp_path / "layout.png"))
    with pytest.raises(tessera.OutOfRangeError):
        layout.to_svg(window="0:99999,0:2")
    with pytest.raises(tessera.Error):
        layout.to_svg(mark=[5000, 0])


def test_npu_explain_scatter_example_and_matrix_best_w():
    from tessera import npu

    tensor = npu.Tensor("npus=4,lmem=1024,align=128", (1, 6, 1, 1), "f32", address=3 * 1024)
    report = tensor.explain()
    assert report["size_bytes"] == 4 * 260 and report["logical_bytes"] == 24
    assert report["suggestions"][0]["size_bytes"] == 32
    assert len(report["npus"]) == 4
    matrix = npu.Matrix("npus=4,lmem=1024,align=128", 2, 40, "f32", w=40)
    assert matrix.explain()["best_w"] == 10


def test_npu_pictures_are_valid_svg_and_html(tmp_path):
    from tessera import npu

    tensor = npu.Tensor("npus=4,lmem=1024,align=128", (2, 5, 3, 4), "f32", layout=(120, 56, 16, 2))
    svg = tensor.to_svg()
    root = ElementTree.fromstring(svg.encode())
    assert root.tag.endswith("svg")
    assert tensor._repr_svg_() == svg and "<svg" in tensor._repr_html_()
    matrix = npu.Matrix("npus=4,lmem=1024,align=128", 2, 40, "f32")
    ElementTree.fromstring(matrix.to_svg().encode())
    matrix.save(str(tmp_path / "matrix.html"))
    assert (tmp_path / "matrix.html").stat().st_size > 0
    with pytest.raises(tessera.Error):
        tensor.to_svg(window="0:1,0:99")
