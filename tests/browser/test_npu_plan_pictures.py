"""`tessera npu plan -o`: the whole-memory picture as a person sees it in Chromium."""
import json
import re
import subprocess
import xml.etree.ElementTree as ET

from headless import dump_dom, screenshot

PLAN = {"device": "npus=4,lmem=1024,align=128,banks=4", "tensors": [
    {"name": "in", "shape": [1, 6, 1, 8], "dtype": "f32", "address": 0},
    {"name": "clash", "shape": [1, 2, 1, 8], "dtype": "f32", "address": 128},
    {"name": "w", "rows": 2, "cols": 40, "w": 10, "dtype": "f32", "address": 512},
    {"name": "out", "shape": [1, 6, 2, 8], "dtype": "f32", "address": "auto"}]}
RED = (0xD6, 0x27, 0x28)


def plan_picture(tessera_path, tmp_path, name):
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(PLAN))
    out = tmp_path / name
    subprocess.run([tessera_path, "npu", "plan", str(plan), "-o", str(out)], check=True,
                   capture_output=True, timeout=60)
    return out


def test_plan_svg_shows_tensors_overlap_and_banks(tessera_path, chromium, tmp_path):
    svg = plan_picture(tessera_path, tmp_path, "plan.svg")
    root = ET.parse(svg).getroot()
    width, height = int(float(root.get("width"))), int(float(root.get("height")))
    w, h, pixels = screenshot(chromium, svg.as_uri(), tmp_path / "plan.png", width, height)
    red = sum(1 for row in pixels for p in row if all(abs(a - b) <= 10 for a, b in zip(p, RED)))
    assert red > 200, "the overlap of in and clash is not red"
    colours = {p for row in pixels[::3] for p in row[::3]}
    assert len(colours) > 10, "tensors are not coloured"
    text = svg.read_text()
    for label in (">in<", ">w<", ">out<", "(bank 3)", "hatched: empty blocks"):
        assert label in text


def test_plan_page_hover_names_tensor_and_element(tessera_path, chromium, tmp_path):
    page = plan_picture(tessera_path, tmp_path, "plan.html")
    # NPU 1, byte 128: in's channel 5 and clash's channel 1 both live there.
    dom = dump_dom(chromium, page.as_uri() + "#offset=1152")
    info = re.search(r'<div id="info"[^>]*>(.*?)</div>', dom).group(1)
    assert "OVERLAP: in (0,5,0,0) &amp; clash (0,1,0,0)" in info and "NPU 1" in info
    dom = dump_dom(chromium, page.as_uri() + "#offset=2112")  # NPU 2, byte 64: in's band only
    info = re.search(r'<div id="info"[^>]*>(.*?)</div>', dom).group(1)
    assert "empty block in the band of in" in info
