"""An independent pure-Python model of the tiled layout spec, for checking the CLI.

Written from the spec's definitions (linear index formulas, repeated tiling, combined dimensions),
sharing no code with the C++ library.
"""
import math
import re

TYPE_BITS = {
    "pred": 8, "s1": 8, "s2": 8, "s4": 8, "s8": 8, "s16": 16, "s32": 32, "s64": 64,
    "u1": 8, "u2": 8, "u4": 8, "u8": 8, "u16": 16, "u32": 32, "u64": 64,
    "f16": 16, "bf16": 16, "f32": 32, "f64": 64, "c64": 64, "c128": 128,
}


def parse(text):
    m = re.fullmatch(r"(\w+)\[([\d,]*)\](?:\{([\d,]*)(?::(.*))?\})?", text)
    dtype, dims, m2m, props = m.groups()
    dims = [int(d) for d in dims.split(",") if d]
    m2m = [int(d) for d in m2m.split(",") if d] if m2m is not None else list(range(len(dims)))[::-1]
    tiles, tail, ebits = [], 1, 0
    props = props or ""
    t = re.match(r"T((?:\([^)]*\))+)", props)
    if t:
        tiles = [[-1 if x == "*" else int(x) for x in grp.split(",")]
                 for grp in re.findall(r"\(([^)]*)\)", t.group(1))]
    if (l := re.search(r"L\((\d+)\)", props)):
        tail = int(l.group(1))
    if (e := re.search(r"E\((\d+)\)", props)):
        ebits = int(e.group(1))
    return dtype, dims, m2m, tiles, tail, ebits


class Model:
    def __init__(self, text):
        self.dtype, self.dims, self.m2m, self.tiles, self.tail, ebits = parse(text)
        self.bits = ebits or TYPE_BITS[self.dtype]
        shape = [self.dims[d] for d in reversed(self.m2m)]
        self.levels = []
        for tile in self.tiles:
            if len(tile) > len(shape):
                shape = [1] * (len(tile) - len(shape)) + shape
            self.levels.append((tile, list(shape)))
            shape = self._tile_shape(tile, shape)
        self.physical_dims = shape
        self.tiled = math.prod(shape)
        self.physical = -(-self.tiled // self.tail) * self.tail
        self.size_bytes = -(-self.physical * self.bits // 8)

    @staticmethod
    def _combine(tile, values, sizes):
        """Folds each '*' dimension into the next: returns (values, sizes, tile) without '*'."""
        out_v, out_s, out_t, acc_v, acc_s = [], [], [], 0, 1
        for t, v, s in zip(tile, values, sizes):
            acc_v, acc_s = acc_v * s + v, acc_s * s
            if t != -1:
                out_v.append(acc_v), out_s.append(acc_s), out_t.append(t)
                acc_v, acc_s = 0, 1
        return out_v, out_s, out_t

    def _tile_shape(self, tile, shape):
        k = len(tile)
        prefix, suffix = shape[:len(shape) - k], shape[len(shape) - k:]
        _, sizes, t = self._combine(tile, [0] * k, suffix)
        return prefix + [-(-s // ti) for s, ti in zip(sizes, t)] + t

    def linear_index(self, index):
        c = [index[d] for d in reversed(self.m2m)]
        for tile, shape in self.levels:
            c = [0] * (len(shape) - len(c)) + c
            k = len(tile)
            prefix = c[:len(c) - k]
            values, _, t = self._combine(tile, c[len(c) - k:], shape[len(shape) - k:])
            c = prefix + [v // ti for v, ti in zip(values, t)] + [v % ti for v, ti in zip(values, t)]
        offset = 0
        for ci, di in zip(c, self.physical_dims):
            offset = offset * di + ci
        return offset

    def all_indices(self):
        import itertools
        return itertools.product(*[range(d) for d in self.dims])
