"""The pictures as a person sees them: rendered by headless Chromium, screenshots inspected."""
import re
import xml.etree.ElementTree as ET

from conftest import draw
from headless import dump_dom, screenshot

HIGHLIGHT = (0xFF, 0xD4, 0x00)  # the .selected fill of the HTML page


def svg_size(path):
    root = ET.parse(path).getroot()
    return int(float(root.get("width"))), int(float(root.get("height")))


def count(pixels, colour, tolerance=10):
    return sum(1 for row in pixels for p in row
               if all(abs(a - b) <= tolerance for a, b in zip(p, colour)))


def test_figure1_svg_is_drawn_not_blank(tessera_path, chromium, tmp_path):
    svg = tmp_path / "figure1.svg"
    draw(tessera_path, svg, "F32[3,5]{1,0:T(2,2)}")
    width, height = svg_size(svg)
    w, h, pixels = screenshot(chromium, svg.as_uri(), tmp_path / "figure1.png", width, height)
    assert (w, h) == (width, height)
    white = count(pixels, (255, 255, 255), 3)
    assert white < 0.97 * w * h, "the picture is blank"
    colours = {p for row in pixels[::4] for p in row[::4]}
    assert len(colours) > 8, "tiles are not coloured"


def test_figure1_cell_two_three_shows_seventeen(tessera_path, chromium, tmp_path):
    page = tmp_path / "figure1.html"
    draw(tessera_path, page, "F32[3,5]{1,0:T(2,2)}")
    dom = dump_dom(chromium, page.as_uri())
    cell = re.search(r'<g class="grid-cell[^"]*"[^>]*data-index="2,3"[^>]*>.*?</g>', dom, re.S)
    assert cell, "no grid cell for (2,3)"
    assert re.search(r"<text[^>]*>17</text>", cell.group(0))


def test_hovering_a_cell_highlights_its_memory_slot(tessera_path, chromium, tmp_path):
    page = tmp_path / "figure1.html"
    draw(tessera_path, page, "F32[3,5]{1,0:T(2,2)}")
    dom = dump_dom(chromium, page.as_uri() + "#hover=2,3")
    selected = re.findall(r'<g class="(grid-cell|memory-slot) selected" data-offset="(\d+)"', dom)
    assert sorted(selected) == [("grid-cell", "17"), ("memory-slot", "17")]
    info = re.search(r'<div id="info"[^>]*>(.*?)</div>', dom).group(1)
    assert "(2,3)" in info and "offset 17" in info and "byte 68" in info and "tile (1,1)" in info
    # Nothing is selected without a hover.
    assert "selected" not in re.sub(r"<style>.*?</style>|<script>.*?</script>", "",
                                    dump_dom(chromium, page.as_uri()), flags=re.S)


def test_highlight_is_visible_on_both_sides(tessera_path, chromium, tmp_path):
    page = tmp_path / "figure1.html"
    draw(tessera_path, page, "F32[3,5]{1,0:T(2,2)}")
    w, h, pixels = screenshot(chromium, page.as_uri() + "#select=2,3", tmp_path / "sel.png", 1100, 600)
    yellow = [(x, y) for y, row in enumerate(pixels) for x, p in enumerate(row)
              if all(abs(a - b) <= 12 for a, b in zip(p, HIGHLIGHT))]
    assert yellow, "no highlighted cell on screen"
    xs = sorted(x for x, _ in yellow)
    assert xs[-1] - xs[0] > 200, "only one side is highlighted"


def test_alternative_packing_red_dot_at_fifty_one(tessera_path, chromium, tmp_path):
    page = tmp_path / "figure4.html"
    draw(tessera_path, page, "bf16[8,8]{1,0:T(2,4)(2,1,1,1)}", "--mark", "6,5")
    dom = dump_dom(chromium, page.as_uri() + "#hover=6,5")
    assert re.search(r'<g class="memory-slot selected" data-offset="51" data-index="6,5"', dom)
    svg = tmp_path / "figure4.svg"
    draw(tessera_path, svg, "bf16[8,8]{1,0:T(2,4)(2,1,1,1)}", "--mark", "6,5")
    width, height = svg_size(svg)
    _, _, pixels = screenshot(chromium, svg.as_uri(), tmp_path / "figure4.png", width, height)
    assert count(pixels, (0xE0, 0, 0), 30) > 20, "the red dot is not drawn"


def test_large_tpu_shape_page_renders(tessera_path, chromium, tmp_path):
    page = tmp_path / "big.html"
    # The order written, as an OOM report prints it: that is the 32x padding to draw. A device array
    # of these dims is reordered by the compiler and has no padding (its grid is 4 columns wide).
    draw(tessera_path, page, "s32[2048,1,128,128,4]{4,3,2,1,0}", "--target", "tpu", "--window", "0:16,0:16")
    dom = dump_dom(chromium, page.as_uri() + "#hover=0,0,0,1,2")
    assert 'class="grid-cell selected" data-offset="130"' in dom


NPU_DEVICE = "npus=4,lmem=1024,align=128"


def test_npu_page_hover_shows_npu_and_byte(tessera_path, chromium, tmp_path):
    page = tmp_path / "stride.html"
    draw(tessera_path, page, "npu", "--device", NPU_DEVICE, "--shape", "2,5,3,4", "--dtype", "f32",
         "--address", "0", "--layout", "strides=120,56,16,2")
    dom = dump_dom(chromium, page.as_uri() + "#hover=0,1,0,1")
    assert re.findall(r'<g class="grid-cell selected" data-offset="(\d+)"', dom) == ["1032"]
    info = re.search(r'<div id="info"[^>]*>(.*?)</div>', dom).group(1)
    assert "(0,1,0,1)" in info and "NPU 1, byte 8" in info


def test_npu_matrix_picture_is_drawn(tessera_path, chromium, tmp_path):
    svg = tmp_path / "matrix.svg"
    draw(tessera_path, svg, "npu", "--device", NPU_DEVICE, "--rows", "2", "--cols", "40", "--dtype",
         "f32", "--address", "0", "--w", "15")
    width, height = svg_size(svg)
    w, h, pixels = screenshot(chromium, svg.as_uri(), tmp_path / "matrix.png", width, height)
    assert count(pixels, (255, 255, 255), 3) < 0.95 * w * h
    # Three channel colours (NPUs 0-2) and NPU 3 blank: the right quarter of the blocks is white.
    colours = {p for row in pixels[100:400:5] for p in row[90:420:3]}
    assert len(colours) > 5
