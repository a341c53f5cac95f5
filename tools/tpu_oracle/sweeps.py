"""The arrays the oracle compiles: systematic sweeps around every tile boundary, plus seeded
random arrays. Each sweep is one experiment; its name is what the model's rules cite
(src/tpu/compiler_model.cpp)."""

from __future__ import annotations

import math
import random

# Every element type JAX has (s2/u2 included: libtpu aborts on some of their shapes, and the
# fixtures record which).
TYPES = ["pred", "s2", "u2", "s4", "u4", "s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64", "f16", "bf16",
         "f32", "f64", "c64", "c128", "f4e2m1fn", "f8e5m2", "f8e4m3", "f8e4m3fn", "f8e4m3b11fnuz",
         "f8e3m4", "f8e5m2fnuz", "f8e4m3fnuz", "f8e8m0fnu"]
# One of each storage class, for the sweeps whose answer depends only on the bits.
CLASSES = ["pred", "s2", "s4", "s8", "bf16", "f16", "s16", "f32", "s64", "c64", "c128", "f8e4m3fn"]


def rank0():
    return [(t, []) for t in TYPES]


def rank1_lengths():
    lengths = sorted({*range(1, 34), *(k * m + e for k in (128, 256, 512, 1024) for m in (1, 2, 3)
                                       for e in (-1, 0, 1)), 4095, 4096, 4097, 65537})
    return [(t, [n]) for t in CLASSES for n in lengths]


def rank2_rows():
    return [(t, [s, 1024]) for t in TYPES for s in range(1, 70)]


def rank2_whole_tiles():
    seconds = sorted({*range(1, 70), *(32 * k + e for k in range(2, 35) for e in (-1, 0, 1))})
    return [(t, [s, m]) for t in ("s8", "pred", "s4", "f4e2m1fn", "s2") for m in (128, 1024)
            for s in seconds]


def rank2_order():
    dims = [1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257,
            513, 1000, 1024, 1025]
    return [(t, [a, b]) for t in ("f32", "bf16", "s8", "s4", "s2") for a in dims for b in dims]


def _random_dim(rng: random.Random) -> int:
    r = rng.random()
    if r < 0.04:
        return 0
    if r < 0.30:
        return rng.randint(1, 10)
    if r < 0.60:
        return rng.choice([16, 32, 64, 96, 128, 192, 256, 320, 512, 1024, 2048]) * rng.choice(
            [1, 1, 2, 3]) + rng.choice([-1, 0, 0, 0, 1])
    if r < 0.85:
        return rng.randint(1, 600)
    return rng.randint(1, 100000)


def random_arrays(seed: int, count: int, max_rank: int = 6):
    """Arrays of every type, rank 0..max_rank, at most 2^25 elements (they must fit in the HBM
    of the smallest generation, 8 GB on tpu-v2, a batch at a time)."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        dims = [_random_dim(rng) for _ in range(rng.randint(0, max_rank))]
        while math.prod(d for d in dims if d) > 2 ** 25:
            dims = [max(1, d // 4) if d else 0 for d in dims]
        out.append((rng.choice(TYPES), dims))
    return out


def unsupported():
    """Arrays libtpu aborts on, recorded so the model knows what the compiler refuses."""
    return [("s2", [8, 128]), ("u2", [7])]


SWEEPS = {
    "rank0": ("Scalars of every type", rank0),
    "rank1_lengths": ("Rank 1 of 1..65537 elements, one type per storage class", rank1_lengths),
    "rank2_rows": ("Second minor 1..69 with minor 1024 (no reorder), every type", rank2_rows),
    "rank2_whole_tiles": ("8-bit and 4-bit second minor 1..1089 around multiples of 32, "
                          "minor 128 and 1024", rank2_whole_tiles),
    "rank2_order": ("Every pair of 26 dims around tile boundaries, five storage classes: the "
                    "dimension order", rank2_order),
    "random": ("1500 seeded random arrays, every type, rank 0-6, dims 0..100000",
               lambda: random_arrays(seed=38, count=1500)),
    "unsupported": ("2-bit types, which libtpu 0.0.42.1 aborts on", unsupported),
}
