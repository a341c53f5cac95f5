"""`tessera diff -o` as a person sees it: two grids in headless Chromium, the moved
elements in orange and the ones that stay in green, one element highlighted on both grids."""
import re
import subprocess
import xml.etree.ElementTree as ET

from headless import dump_dom, screenshot

HIGHLIGHT = (0xFF, 0xD4, 0x00)  # the .selected fill of the HTML page
MOVED = (0xFD, 0xAE, 0x6B)
STAYED = (0xC7, 0xE9, 0xC0)


def diff(tessera_path, out, *args):
    subprocess.run([tessera_path, "diff", *args, "-o", str(out)], check=True, capture_output=True,
                   timeout=60)


def count(pixels, colour, tolerance=6):
    return sum(1 for row in pixels for p in row
               if all(abs(a - b) <= tolerance for a, b in zip(p, colour)))


def test_diff_svg_shows_moved_and_stayed_elements(tessera_path, chromium, tmp_path):
    svg = tmp_path / "diff.svg"
    diff(tessera_path, svg, "f32[3,5]{1,0}", "f32[3,5]{1,0:T(2,2)}")
    root = ET.parse(svg).getroot()
    width, height = int(float(root.get("width"))), int(float(root.get("height")))
    w, h, pixels = screenshot(chromium, svg.as_uri(), tmp_path / "diff.png", width, height)
    assert (w, h) == (width, height)
    moved, stayed = count(pixels, MOVED), count(pixels, STAYED)
    # (0,0) and (0,1) stay, the other 13 move; each is drawn on both grids.
    assert moved > 3 * stayed > 0, (moved, stayed)


def test_hovering_an_element_highlights_it_on_both_grids(tessera_path, chromium, tmp_path):
    page = tmp_path / "diff.html"
    diff(tessera_path, page, "f32[3,5]{1,0}", "f32[3,5]{1,0:T(2,2)}")
    dom = dump_dom(chromium, page.as_uri() + "#hover=2,3")
    selected = re.findall(r'<g class="grid-cell (a|b)-cell moved selected"[^>]*data-index="2,3"', dom)
    assert sorted(selected) == ["a", "b"]
    info = re.search(r'<div id="info"[^>]*>(.*?)</div>', dom).group(1)
    assert "(2,3) moves" in info and "a offset 13" in info and "b offset 17" in info
    w, h, pixels = screenshot(chromium, page.as_uri() + "#select=2,3", tmp_path / "sel.png", 1100, 500)
    yellow = [x for row in pixels for x, p in enumerate(row)
              if all(abs(a - b) <= 12 for a, b in zip(p, HIGHLIGHT))]
    assert yellow and max(yellow) - min(yellow) > 200, "only one grid is highlighted"
