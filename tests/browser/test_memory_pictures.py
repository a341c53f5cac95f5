"""`tessera explain MODULE --memory-picture` as a person sees it in headless Chromium: HBM over
the schedule, the red dashed line of the generation's HBM under the peak of a program that does
not fit, the peak marked, and the buffers alive there named (hovering one shows it in the panel)."""
import pathlib
import re
import subprocess
import xml.etree.ElementTree as ET

from headless import dump_dom, screenshot

MEMORY = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "tpu_memory"
AREA = (0x6B, 0xAE, 0xD6)
CAPACITY = (0xD6, 0x27, 0x28)
SVG = "{http://www.w3.org/2000/svg}"


def picture(tessera_path, out, fixture, target):
    result = subprocess.run([tessera_path, "explain", str(MEMORY / fixture / "after_optimizations.txt"),
                             "--target", target, "--memory-picture", str(out)],
                            check=True, capture_output=True, text=True, timeout=60)
    assert f"wrote {out}" in result.stdout


def count(pixels, colour, tolerance=8):
    return sum(1 for row in pixels for p in row if all(abs(a - b) <= tolerance for a, b in zip(p, colour)))


def test_out_of_memory_program_crosses_the_hbm_line(tessera_path, chromium, tmp_path):
    svg = tmp_path / "oom.svg"
    picture(tessera_path, svg, "v5e_lm_head_oom", "tpu-v5e")
    root = ET.parse(svg).getroot()
    peak = root.find(f".//{SVG}g[@class='peak-marker']")
    capacity = root.find(f".//{SVG}g[@class='hbm-capacity']")
    assert int(peak.get("data-bytes")) > int(capacity.get("data-bytes"))
    names = [g.get("data-name") for g in root.iter(f"{SVG}g") if g.get("class") == "peak-buffer"]
    assert len(names) >= 2
    width, height = int(float(root.get("width"))), int(float(root.get("height")))
    w, h, pixels = screenshot(chromium, svg.as_uri(), tmp_path / "oom.png", width, height)
    assert (w, h) == (width, height)
    assert count(pixels, AREA) > 1000, "the area of bytes alive is not drawn"
    assert count(pixels, CAPACITY) > 50, "the HBM line is not drawn"


def test_hovering_a_buffer_names_it_in_the_panel(tessera_path, chromium, tmp_path):
    page = tmp_path / "mlp.html"
    picture(tessera_path, page, "v5e_mlp_train", "tpu-v5e")
    dom = dump_dom(chromium, page.as_uri() + "#offset=0")
    info = re.search(r'<div id="info"[^>]*>(.*?)</div>', dom, re.S).group(1)
    assert "parameter" in info and "f32[1024,512]" in info, info
