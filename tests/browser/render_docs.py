"""Regenerates the pictures in docs/ from the real CLI and headless Chromium:

    python3 tests/browser/render_docs.py --tessera build/release/tessera
"""
import argparse
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(__file__))
from headless import screenshot  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# (png name, draw arguments, URL fragment for HTML pages or None for SVG)
PICTURES = [
    ("figure1_f32_3x5_tiles_2x2.png", ["F32[3,5]{1,0:T(2,2)}"], None),
    ("figure2_repeated_tiling_2x4_2x1.png", ["bf16[4,8]{1,0:T(2,4)(2,1)}"], None),
    ("figure4_alternative_packing_red_dot.png", ["bf16[8,8]{1,0:T(2,4)(2,1,1,1)}", "--mark", "6,5"], None),
    ("tpu_bf16_small_tile.png", ["bf16[3,20]", "--target", "tpu", "--window", "0:4,0:32"], None),
    ("tpu_s32_padding_32x.png", ["s32[2048,1,128,128,4]{4,3,2,1,0}", "--target", "tpu", "--window", "0:16,0:24",
                                 "--max-cells", "1024"], None),
    ("figure1_html_hover_2_3.png", ["F32[3,5]{1,0:T(2,2)}"], "#hover=2,3"),
    ("npu_matrix_w15.png", ["npu", "--device", "npus=4,lmem=1024,align=128", "--rows", "2",
                            "--cols", "40", "--dtype", "f32", "--address", "0", "--w", "15"], None),
    ("npu_scatter_start_npu3.png", ["npu", "--device", "npus=4,lmem=1024,align=128", "--shape",
                                    "2,6,1,1", "--dtype", "f32", "--address", "3072"], None),
    ("npu_4n_mode.png", ["npu", "--device", "npus=4,lmem=1024,align=128", "--shape", "6,5,4,5",
                         "--dtype", "s8", "--address", "0", "--mode", "4N", "--window",
                         "56:72,0:4"], None),
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tessera", default=os.path.join(ROOT, "build/release/tessera"))
    parser.add_argument("--chromium", default="chromium")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for name, draw_args, fragment in PICTURES:
            source = os.path.join(tmp, name.replace(".png", ".html" if fragment else ".svg"))
            subprocess.run([args.tessera, "draw", *draw_args, "-o", source], check=True)
            svg = source if not fragment else source.replace(".html", ".svg")
            if fragment:
                subprocess.run([args.tessera, "draw", *draw_args, "-o", svg], check=True)
            root = ET.parse(svg).getroot()
            width = int(float(root.get("width"))) + (40 if fragment else 0)
            height = int(float(root.get("height"))) + (110 if fragment else 0)
            url = "file://" + source + (fragment or "")
            screenshot(args.chromium, url, os.path.join(ROOT, "docs", name), width, height)
            print("wrote docs/" + name)


if __name__ == "__main__":
    main()
