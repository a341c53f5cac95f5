"""Random requests for a C model (python/tessera/cmodel.py): constants, stride functions, channel
counts, tensor copies of every kind and width, matrix copies. The fixtures (run.py, fixed seeds)
and the live tests (tests/python/test_npu_cmodel_live.py, a fresh seed every run) draw from here.

Every request is small (a few hundred elements) so that a fixture stays readable and a live run
asks hundreds of them in seconds; the sizes still cross every boundary that matters (C around
the NPU count, start NPUs near the end, H*W around the alignment).
"""

from __future__ import annotations

import math
import random

WIDTHS = (8, 16, 32)
COPY_KINDS = ("default", "aligned", "compact", "strides")


def _align(value: int, to: int) -> int:
    return -(-value // to) * to


def _channels(rng: random.Random, npus: int) -> int:
    r = rng.random()
    if r < 0.3:
        return rng.randint(1, min(9, npus))
    if r < 0.8:
        return max(1, npus * rng.randint(1, 2) + rng.randint(-3, 3))
    return rng.randint(1, 3 * npus)


def _shape(rng: random.Random, npus: int, limit: int = 320) -> list:
    c = _channels(rng, npus)
    while True:  # N >= 2 mostly: the N stride is where the chips differ
        n = rng.randint(2, 3) if rng.random() < 0.7 else 1
        h, w = rng.randint(1, 5), rng.randint(1, 9)
        if n * c * h * w <= limit or (n, h, w) == (1, 1, 1):
            return [n, c, h, w]


def w_stride_request(chip: dict) -> dict:
    """A copy with W stride 2 on both sides: BM1684, CV184X and SGTPUV8 end on an assertion
    (their GDMA moves W contiguously), so their sweeps keep W stride 1."""
    return {"op": "copy", "bits": 32, "shape": [1, 2, 1, 3], "address": 0,
            "dst_stride": [12, 6, 6, 2], "src_stride": [12, 6, 6, 2]}


def constants_request() -> dict:
    return {"op": "constants"}


def stride_requests(rng: random.Random, npus: int, count: int) -> list:
    requests = []
    for _ in range(count):
        start = rng.choice([0, rng.randint(0, npus - 1), npus - 1])
        shape = [rng.randint(1, 4), _channels(rng, npus), rng.randint(1, 40), rng.randint(1, 40)]
        requests.append({"op": "channels_per_npu", "start": start, "channels": shape[1]})
        requests.append({"op": "aligned_stride", "start": start, "shape": shape,
                         "bits": rng.choice(WIDTHS)})
        requests.append({"op": "compact_stride", "start": start, "shape": shape})
    return requests


def copy_request(rng: random.Random, chip: dict, kind: str, bits: int) -> dict:
    """A GDMA copy into local memory: `kind` says which destination strides the copy is given
    (none: the chip's default; the chip's own aligned or compact strides; custom ones)."""
    npus, lmem = chip["npus"], chip["local_memory_bytes"]
    align = chip["eu_bytes"][str(bits)]
    width = bits // 8
    shape = _shape(rng, npus)
    n, c, h, w = shape
    start = rng.choice([0, rng.randint(1, npus - 1) if npus > 1 else 0, npus - 1])
    step = align if kind in ("default", "aligned") else max(4, width)
    offset = step * rng.randint(0, 8)
    request = {"op": "copy", "kind": kind, "bits": bits, "shape": shape,
               "address": start * lmem + offset}
    rows = math.ceil((start + c) / npus)
    if kind == "aligned":
        cs = _align(h * w * width, align) // width
        request["dst_stride_from"] = "aligned_stride"
    elif kind == "compact":
        request["dst_stride_from"] = "compact_stride"
    elif kind == "strides":
        ws = 1 if chip["unit_w_stride"] else rng.choice([1, 1, 2])
        hs = w * ws + rng.randint(0, 3)
        cs = h * hs + rng.randint(0, 5)
        ns = rows * cs + rng.randint(0, 7)
        request["dst_stride"] = [ns, cs, hs, ws]
    if rng.random() < 0.3:  # a strided source: system strides
        sw = 1 if chip["unit_w_stride"] or rng.random() < 0.7 else 2
        sh = w * sw + rng.randint(0, 4)
        sc = h * sh + rng.randint(0, 4)
        request["src_stride"] = [c * sc + rng.randint(0, 4), sc, sh, sw]
    return request


def matrix_request(rng: random.Random, chip: dict, bits: int) -> dict:
    npus, lmem = chip["npus"], chip["local_memory_bytes"]
    rows = rng.randint(2, 4) if rng.random() < 0.8 else 1
    cols = rng.randint(1, min(200, 3 * npus))
    r = rng.random()
    width = rng.randint(1, cols) if r < 0.5 else max(1, math.ceil(cols / rng.randint(1, npus + 3)))
    width = min(width, cols)
    start = rng.choice([0, rng.randint(0, npus - 1), npus - 1])
    align = chip["eu_bytes"][str(bits)]
    return {"op": "matrix", "bits": bits, "rows": rows, "cols": cols, "cols_per_channel": width,
            "row_stride": cols + rng.choice([0, 0, rng.randint(1, 9)]),
            "address": start * lmem + align * rng.randint(0, 4)}


def sweep(rng: random.Random, chip: dict, copies_per_kind: int, matrices: int,
          strides: int) -> list:
    """Requests covering every kind of copy and every width for one chip."""
    requests = [constants_request()] + stride_requests(rng, chip["npus"], strides)
    for kind in COPY_KINDS:
        for bits in WIDTHS:
            requests += [copy_request(rng, chip, kind, bits) for _ in range(copies_per_kind)]
    matrix_widths = (32,) if chip.get("api") == "okk" else WIDTHS
    for bits in matrix_widths:
        requests += [matrix_request(rng, chip, bits) for _ in range(matrices)]
    return requests


def resolve(model, request: dict) -> dict:
    """Fills in the strides a request takes from the chip's own stride functions."""
    source = request.get("dst_stride_from")
    if source is None:
        return request
    start = request["address"] // model_constants(model)["local_memory_bytes"]
    ask = {"op": source, "start": start, "shape": request["shape"]}
    if source == "aligned_stride":
        ask["bits"] = request["bits"]
    resolved = dict(request)
    resolved["dst_stride"] = model.ask(ask)["stride"]
    return resolved


def model_constants(model) -> dict:
    cached = getattr(model, "_constants", None)
    if cached is None:
        cached = model.ask(constants_request())
        model._constants = cached
    return cached
