"""`tessera explain` and `tessera draw` through the real binary: JSON keys pinned by the schema,
numbers against an independent model of the TPU profile, valid SVG/HTML, and every error path."""
import html.parser
import json
import math
import random
import xml.etree.ElementTree as ET

import pytest

# An independent statement of the TPU profile (docs/reference/tpu-targets.md): stored bits, packing.
STORED_BITS = {"f32": 32, "s32": 32, "u32": 32, "f64": 64, "s64": 64, "u64": 64, "c64": 64,
               "c128": 128, "bf16": 16, "f16": 16, "s16": 16, "u16": 16, "s8": 8, "u8": 8,
               "f8e5m2": 8, "f8e4m3fn": 8, "s4": 4, "u4": 4, "s2": 2, "u2": 2, "s1": 1, "u1": 1,
               "pred": 32}
INFORMATION_BITS = dict(STORED_BITS, pred=1, c128=128)


def tpu_rows(dtype, physical, packing):
    """Tile rows under `tpu` (tpu-v3): the small tile rule, 16-bit second minor 1 -> 4 rows
    (pytorch/xla#6674), at least the packing."""
    second = physical[-2]
    rows = 2 if 1 <= second <= 2 else 4 if 3 <= second <= 4 else 8
    if STORED_BITS[dtype] == 16 and second == 1:
        rows = 4
    return max(rows, packing)


def linear_tile(n, packing):
    """Rank-1 tile length: 256 / 512 / 1024 by length (f32[1280] -> T(1024)), >= 128 * packing."""
    length = 256 if n <= 256 else 512 if n <= 512 else 1024
    return max(length, 128 * max(2, packing))


def tpu_tiles(dtype, physical):
    """Expected tile text and bits for physical dims (most major first)."""
    bits = STORED_BITS[dtype]
    packing = 32 // bits if bits < 32 else 1
    suffix = f"({packing},1)" if packing > 1 else ""
    e = ""
    default_bits = 8 if bits < 8 or dtype == "pred" else bits
    if bits != default_bits:
        e = f"E({bits})"
    if not physical:
        return f"({256 * packing})" + suffix + e
    if len(physical) == 1:
        return f"({linear_tile(physical[0], packing)})" + (f"(128)({packing},1)" if packing > 1 else "") + e
    return f"({tpu_rows(dtype, physical, packing)},128){suffix}{e}"


def tpu_size_bytes(dtype, physical):
    bits = STORED_BITS[dtype]
    packing = 32 // bits if bits < 32 else 1
    if not physical:
        return 256 * packing * bits // 8
    if len(physical) == 1:
        n = physical[0]
        tile = linear_tile(n, packing)
        return math.ceil(max(n, 1) / tile) * tile * bits // 8
    second = physical[-2]
    rows = tpu_rows(dtype, physical, packing)
    elements = math.prod(physical[:-2]) * math.ceil(second / rows) * rows * math.ceil(physical[-1] / 128) * 128
    return elements * bits // 8


def test_figure1_json(tessera):
    out = tessera.json("explain", "F32[3,5]{1,0:T(2,2)}", "--json")
    assert out["layout"] == "f32[3,5]{1,0:T(2,2)}"
    assert out["logical_bytes"] == 60
    assert out["size_bytes"] == 96
    assert out["padding_fraction"] == pytest.approx(9 / 24)
    assert isinstance(out["suggestions"], list)
    assert [s["text"] for s in out["padding_sources"]] == [
        "dim 0: 3 -> 4 by the second minor tile of T(2,2) (level 1), x1.33",
        "dim 1: 5 -> 6 by the minor tile of T(2,2) (level 1), x1.2"]


def test_why_thirty_two_times(tessera):
    # With its order written, as an OOM report prints a program's intermediate; a device array of
    # these dims is stored without padding (test_device_array_dims_are_ordered_by_the_compiler).
    out = tessera.json("explain", "s32[2048,1,128,128,4]{4,3,2,1,0}", "--target", "tpu", "--json")
    assert out["layout"] == "s32[2048,1,128,128,4]{4,3,2,1,0:T(8,128)}"
    assert out["size_bytes"] == 32 * out["logical_bytes"] == 16 * 2**30
    assert out["padding_sources"][0]["text"].startswith("dim 4: 4 -> 128 by the minor tile")
    best = out["suggestions"][0]
    assert best["size_bytes"] == 2**29 and best["bytes_saved"] == 16 * 2**30 - 2**29
    sizes = [s["size_bytes"] for s in out["suggestions"]]
    assert sizes == sorted(sizes)
    text = "\n".join(tessera.lines("explain", "s32[2048,1,128,128,4]{4,3,2,1,0}", "--target", "tpu"))
    assert "32x the data" in text and "pad (2048,1,128,128,128)" in text


def test_jax_dtype_names_are_read(tessera):
    for jax_name, xla_name in (("int4", "s4"), ("float8_e4m3fn", "f8e4m3fn"), ("complex128", "c128")):
        out = tessera.json("explain", f"{jax_name}[3,5]", "--target", "tpu-v5e", "--json")
        assert out["layout"].startswith(f"{xla_name}[3,5]{{1,0:T(")


def test_device_array_dims_are_ordered_by_the_compiler(tessera):
    out = tessera.json("explain", "s32[2048,1,128,128,4]", "--target", "tpu-v5e", "--json")
    assert out["layout"] == "s32[2048,1,128,128,4]{3,4,2,1,0:T(4,128)}"
    assert out["size_bytes"] == out["logical_bytes"] == 2**29
    assert out["xla_era"] == "2026" and out["target"] == "tpu-v5e"
    assert out["written_order"] == {"layout": "s32[2048,1,128,128,4]{4,3,2,1,0:T(8,128)}",
                                    "size_bytes": 16 * 2**30}
    text = "\n".join(tessera.lines("explain", "f32[1024,3]", "--target", "tpu-v6e"))
    assert "f32[1024,3]{0,1:T(4,128)}" in text
    assert "in the written order, f32[1024,3]{1,0:T(8,128)}, it would take 512 KiB" in text
    old = tessera.json("explain", "f32[1024,3]", "--target", "tpu", "--xla-era", "2020", "--json")
    assert old["layout"] == "f32[1024,3]{1,0:T(8,128)}" and old["target"] == "tpu-v3"
    assert old["written_order"] is None


@pytest.mark.parametrize("dtype", sorted(STORED_BITS))
@pytest.mark.parametrize("second", range(1, 10))
def test_tpu_tiles_per_dtype_and_second_minor(tessera, dtype, second):
    # The 2020 era's table (spec_model.py); the 2026 compiler is checked live and by fixtures.
    out = tessera.json("explain", f"{dtype}[3,{second},200]", "--target", "tpu", "--xla-era", "2020",
                       "--json")
    assert out["layout"] == f"{dtype}[3,{second},200]{{2,1,0:T{tpu_tiles(dtype, [3, second, 200])}}}"
    assert out["size_bytes"] == tpu_size_bytes(dtype, [3, second, 200])


def test_held_out_style_random_shapes(tessera):
    rng = random.Random(5)
    for _ in range(40):
        dtype = rng.choice(sorted(STORED_BITS))
        dims = [rng.randint(1, 300) for _ in range(rng.randint(1, 4))]
        shape = f"{dtype}[{','.join(map(str, dims))}]"
        out = tessera.json("explain", shape, "--target", "tpu", "--xla-era", "2020", "--json")
        assert out["size_bytes"] == tpu_size_bytes(dtype, dims), shape
        assert out["logical_bytes"] == math.ceil(math.prod(dims) * INFORMATION_BITS[dtype] / 8)
        if out["suggestions"]:
            best = min([out["size_bytes"]] + [s["size_bytes"] for s in out["suggestions"]])
            import itertools
            brute = min(tpu_size_bytes(dtype, [dims[i] for i in order])
                        for order in itertools.permutations(range(len(dims))))
            if dtype != "pred":
                assert best == brute, shape


def test_pred_one_bit_option(tessera):
    out = tessera.json("explain", "pred[64,256]", "--target", "tpu", "--xla-era", "2020", "--json")
    assert out["layout"] == "pred[64,256]{1,0:T(8,128)E(32)}"
    assert out["size_bytes"] == 64 * 256 * 4
    assert out["suggestions"][0]["layout"] == "pred[64,256]{1,0:T(32,128)(32,1)E(1)}"
    assert out["suggestions"][0]["size_bytes"] == 64 * 256 // 8
    one = tessera.json("explain", "pred[64,256]", "--target", "tpu", "--pred-bits", "1", "--xla-era", "2020",
                       "--json")
    assert one["size_bytes"] == 2048


def test_default_runs_every_example(tessera):
    text = "\n".join(tessera.lines("explain"))
    assert "f32[3,5]{1,0:T(2,2)}" in text and "s32[2048,1,128,128,4]{4,3,2,1,0:T(8,128)}" in text
    assert "f32[1024,3]{0,1:T(4,128)}" in text
    out = tessera.json("explain", "--json")
    assert out["layout"] == "s32[2048,1,128,128,4]{4,3,2,1,0:T(8,128)}"
    assert [e["size_bytes"] for e in out["examples"]] == [96, 16 * 2**10, 16 * 2**30]


class _Checker(html.parser.HTMLParser):
    VOID = {"meta", "br", "img", "input", "link", "hr", "path", "rect", "circle"}

    def __init__(self):
        super().__init__()
        self.stack = []
        self.tags = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        if tag in self.VOID:
            return
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack[-1:]}"
        self.stack.pop()


def test_draw_svg_is_valid_and_shows_seventeen(tessera, tmp_path):
    path = tmp_path / "figure1.svg"
    tessera.run("draw", "F32[3,5]{1,0:T(2,2)}", "-o", str(path))
    root = ET.parse(path).getroot()
    ns = {"s": "http://www.w3.org/2000/svg"}
    cells = root.findall(".//s:g[@class='grid-cell']", ns)
    assert len(cells) == 24
    cell = [c for c in cells if c.get("data-index") == "2,3"][0]
    assert cell.find("s:text", ns).text == "17"
    slots = root.findall(".//s:g[@class='memory-slot']", ns)
    assert [s.get("data-offset") for s in slots] == [str(i) for i in range(24)]
    assert sum(1 for s in slots if s.get("data-padding") == "1") == 9


def test_draw_html_is_self_contained(tessera, tmp_path):
    path = tmp_path / "figure1.html"
    tessera.run("draw", "F32[3,5]{1,0:T(2,2)}", "-o", str(path))
    text = path.read_text()
    checker = _Checker()
    checker.feed(text)
    checker.close()
    assert checker.stack == []
    assert not any(tag == "script" and "src" in attrs for tag, attrs in checker.tags)
    assert not any("href" in attrs for _, attrs in checker.tags)
    assert "http://" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "")


def test_draw_large_shape_is_capped(tessera, tmp_path):
    path = tmp_path / "big.svg"
    tessera.run("draw", "s32[2048,1,128,128,4]{4,3,2,1,0}", "--target", "tpu", "-o", str(path))
    assert path.stat().st_size < 3_000_000
    ET.parse(path)
    windowed = tmp_path / "window.svg"
    tessera.run("draw", "f32[1000,1000]", "--window", "10:20,100:132", "-o", str(windowed))
    root = ET.parse(windowed).getroot()
    cells = root.findall(".//{http://www.w3.org/2000/svg}g[@class='grid-cell']")
    assert len(cells) == 320 and cells[0].get("data-index") == "10,100"


def test_draw_alternative_packing_mark(tessera, tmp_path):
    path = tmp_path / "figure4.svg"
    tessera.run("draw", "bf16[8,8]{1,0:T(2,4)(2,1,1,1)}", "--mark", "6,5", "-o", str(path))
    root = ET.parse(path).getroot()
    marks = root.findall(".//{http://www.w3.org/2000/svg}circle[@class='mark']")
    assert len(marks) == 2
    cell = [c for c in root.iter("{http://www.w3.org/2000/svg}g") if c.get("data-index") == "6,5"][0]
    assert cell.get("data-offset") == "51"


@pytest.mark.parametrize("args", [
    ["explain", "f32[3,"],
    ["explain", "q7[3]"],
    ["explain", "f32[3]", "--target", "gpu"],
    ["explain", "pred[3]", "--target", "tpu", "--pred-bits", "16"],
    ["explain", "f32[3]", "--target", "tpu-v9"],
    ["info", "f32[3]", "--target", "gpu"],
    ["index", "f32[3]", "1", "--target", "TPU"],
    ["draw", "f32[3]", "--target", "x", "-o", "OUT.svg"],
    ["explain", "f32[3]{1}"],
    ["draw", "f32[3,"],
    ["draw", "F32[3,5]{1,0:T(2,2)}", "-o", "OUT.png"],
    ["draw", "F32[3,5]{1,0:T(2,2)}", "-o", "/nonexistent-dir/x.svg"],
    ["draw", "F32[3,5]{1,0:T(2,2)}", "--window", "0:9,0:2", "-o", "OUT.svg"],
    ["draw", "F32[3,5]{1,0:T(2,2)}", "--window", "2:1", "-o", "OUT.svg"],
    ["draw", "F32[3,5]{1,0:T(2,2)}", "--window", "x", "-o", "OUT.svg"],
    ["draw", "f32[500,500]", "--window", "0:500,0:500", "-o", "OUT.svg"],
    ["draw", "F32[3,5]{1,0:T(2,2)}", "--mark", "3,0", "-o", "OUT.svg"],
    ["draw", "F32[3,5]{1,0:T(2,2)}", "--mark", "a", "-o", "OUT.svg"],
    ["draw", "f32[0,4]", "-o", "OUT.svg"],
    ["draw", "F32[3,5]{1,0:T(2,2)}", "--max-cells", "0", "-o", "OUT.svg"],
    ["draw", "F32[3,5]{1,0:T(2,2)}"],
])
def test_errors(tessera, tmp_path, args):
    args = [a.replace("OUT", str(tmp_path / "out")) for a in args]
    message = tessera.fails(*args)
    assert len(message) > len("error: ") + 5


# ---- NPU local memory (`explain npu`, `draw npu`) ----

SPEC_DEVICE = "npus=4,lmem=1024,align=128"


def matrix_bytes_per_npu(npus, align, element_bytes, rows, cols, width):
    """Independent model of the spec's matrix layout at NPU 0: the aligned tensor (N, C, 1, W)."""
    channels = math.ceil(cols / width)
    c_stride = math.ceil(width * element_bytes / align) * align // element_bytes
    per_npu = math.ceil(channels / npus)
    n_stride = c_stride * per_npu
    return ((rows - 1) * n_stride + (per_npu - 1) * c_stride + width) * element_bytes, channels


def best_width(npus, align, element_bytes, rows, cols):
    def key(w):
        size, channels = matrix_bytes_per_npu(npus, align, element_bytes, rows, cols, w)
        return (size, channels > npus, -w)
    return min(range(1, cols + 1), key=key)


def test_explain_npu_matrix_json(tessera):
    out = tessera.json("explain", "npu", "--device", SPEC_DEVICE, "--rows", "2", "--cols", "40",
                       "--dtype", "f32", "--address", "0", "--w", "40", "--json")
    assert out["best_w"] == 10
    assert out["size_bytes"] == 4 * 416 and out["logical_bytes"] == 320
    assert out["padding_fraction"] == pytest.approx(1 - 320 / 1664)
    assert out["suggestions"][0]["size_bytes"] == 4 * 168
    assert out["suggestions"][0]["layout"].endswith("--w 10")
    assert [n["npu"] for n in out["npus"]] == [0, 1, 2, 3]
    assert all(set(n) >= {"used_bytes", "wasted_bytes", "banks", "fits"} for n in out["npus"])


def test_explain_npu_best_w_matches_independent_model(tessera):
    rng = random.Random(11)
    for _ in range(25):
        npus = rng.choice([2, 4, 8, 16, 64])
        align = rng.choice([16, 64, 128])
        dtype, element_bytes = rng.choice([("f32", 4), ("f16", 2), ("s8", 1)])
        rows, cols = rng.randint(1, 6), rng.randint(1, 300)
        device = f"npus={npus},lmem=65536,align={align}"
        out = tessera.json("explain", "npu", "--device", device, "--rows", str(rows), "--cols",
                           str(cols), "--dtype", dtype, "--address", "0", "--best-w", "--json")
        assert out["best_w"] == best_width(npus, align, element_bytes, rows, cols), (device, rows, cols, dtype)
        size, _ = matrix_bytes_per_npu(npus, align, element_bytes, rows, cols, out["best_w"])
        assert out["size_bytes"] == npus * size


def test_explain_npu_tensor_table_and_suggestions(tessera):
    out = tessera.json("explain", "npu", "--device", SPEC_DEVICE, "--shape", "1,6,1,1", "--dtype",
                       "fp32", "--address", "3072", "--json")
    assert out["size_bytes"] == 4 * 260 and out["logical_bytes"] == 24
    assert [n["channels"] for n in out["npus"]] == [2, 1, 1, 2]
    assert sum(n["wasted_bytes"] for n in out["npus"]) == out["size_bytes"] - 24
    assert out["suggestions"][0]["size_bytes"] == 32
    assert out["report"]["channels_per_npu"] == 3
    text = "\n".join(tessera.lines("explain", "npu", "--device", SPEC_DEVICE, "--shape", "1,6,1,1",
                                   "--dtype", "f32", "--address", "3072"))
    assert "NPU    channels  used bytes  data bytes  wasted bytes  banks" in text
    assert "start at NPU 0" in text


def test_draw_npu_svg_and_html(tessera, tmp_path):
    svg = tmp_path / "stride.svg"
    tessera.run("draw", "npu", "--device", SPEC_DEVICE, "--shape", "2,5,3,4", "--dtype", "f32",
                "--address", "0", "--layout", "strides=120,56,16,2", "-o", str(svg))
    root = ET.parse(svg).getroot()
    blocks = root.findall(".//{http://www.w3.org/2000/svg}g[@class='grid-cell']")
    by_address = {b.get("data-offset"): b for b in blocks}
    assert by_address[str(1024 + 8)].get("data-index") == "0,1,0,1"
    assert by_address[str(1024 + 4)].get("data-padding") == "1"
    page = tmp_path / "matrix.html"
    tessera.run("draw", "npu", "--device", SPEC_DEVICE, "--rows", "2", "--cols", "40", "--dtype",
                "f32", "--address", "0", "--w", "15", "-o", str(page))
    checker = _Checker()
    checker.feed(page.read_text())
    checker.close()
    assert checker.stack == []


@pytest.mark.parametrize("args", [
    ["explain", "npu", "--device", "tpu9", "--shape", "1,1,1,1", "--dtype", "f32", "--address", "0"],
    ["explain", "npu", "--device", SPEC_DEVICE, "--dtype", "f32", "--address", "0"],
    ["explain", "npu", "--device", SPEC_DEVICE, "--shape", "1,1,1", "--dtype", "f32", "--address", "0"],
    ["explain", "npu", "--device", SPEC_DEVICE, "--shape", "1,1,1,1", "--dtype", "f32", "--address", "4096"],
    ["explain", "npu", "--device", SPEC_DEVICE, "--rows", "2", "--cols", "40", "--dtype", "f32", "--address", "0"],
    ["explain", "npu", "--device", SPEC_DEVICE, "--rows", "2", "--cols", "40", "--dtype", "f32", "--address", "0", "--w", "41"],
    ["explain", "npu", "--device", SPEC_DEVICE, "--rows", "2", "--dtype", "f32", "--address", "0", "--w", "4"],
    ["draw", "npu", "--device", SPEC_DEVICE, "--shape", "1,1,16,32", "--dtype", "f32", "--address", "512", "-o", "OUT.svg"],
    ["draw", "npu", "--device", SPEC_DEVICE, "--shape", "1,1,1,1", "--dtype", "f32", "--address", "0", "-o", "OUT.txt"],
    ["draw", "npu", "--device", SPEC_DEVICE, "--shape", "1,1,1,1", "--dtype", "f32", "--address", "0", "--window", "0:1,0:9", "-o", "OUT.svg"],
    ["draw", "npu", "--device", SPEC_DEVICE, "--shape", "1,1,1,1", "--dtype", "f32", "--address", "0"],
])
def test_npu_errors(tessera, tmp_path, args):
    args = [a.replace("OUT", str(tmp_path / "out")) for a in args]
    tessera.fails(*args)
