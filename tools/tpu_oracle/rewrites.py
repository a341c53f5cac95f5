"""The rewrites a TPU expert tries for an array that wastes memory, compiled: what layout the
compiler gives the array each one makes. For every array of a seeded sample (device
arrays, and arrays whose layout a program fixed, given as JAX major_to_minor), every rewrite of
the kinds tessera's fixes offer, in the words tessera prints them:

    x.reshape(-1)                          the full flatten
    x.reshape(-1, 128)                     rows of 128 lanes (when the elements divide)
    x.reshape(7, 25)                       every grouping of neighbouring dims
    jnp.transpose(x, (1, 0))               every transpose but the identity
    jnp.transpose(x, (1, 0)).reshape(-1)   groupings of the dims in memory order
    jnp.pad(x, ((0, 0), (0, 28)))[...]     one dim to a multiple of 2, 8 or 128, alone or reshaped
    jnp.packbits(x), ...axis=-1)           pred as bits

tests/explain/device_rewrites_test.cpp checks tessera's offers against this record: each offer's
layout is the one recorded for its change, and no recorded rewrite is smaller than the best offer.
Written by run.py (--only rewrites) into tests/fixtures/tpu_oracle/rewrites.json.
"""

from __future__ import annotations

import itertools
import math
import random

# tessera's notation: python_tuple in src/explain/program_fixes.cpp.
def python_tuple(values) -> str:
    values = list(values)
    return f"({values[0]},)" if len(values) == 1 else "(" + ", ".join(map(str, values)) + ")"


def groupings(dims):
    """Every grouping of neighbouring dims but the identity and the full flatten."""
    out = []
    for mask in range(1, (1 << (len(dims) - 1)) - 1):
        grouped = [dims[0]]
        for i in range(1, len(dims)):
            if mask >> (i - 1) & 1:
                grouped[-1] *= dims[i]
            else:
                grouped.append(dims[i])
        out.append(grouped)
    return out


def reshape_codes(prefix: str, dims) -> list[str]:
    """prefix + every reshape: flatten, rows of 128 lanes, groupings."""
    codes = [f"{prefix}.reshape(-1)"] if len(dims) > 1 else []
    if math.prod(dims) % 128 == 0:
        codes.append(f"{prefix}.reshape(-1, 128)")
    codes += [f"{prefix}.reshape({', '.join(map(str, g))})" for g in groupings(dims)]
    return codes


def pad_text(rank: int, k: int, amount: int) -> str:
    widths = ["(0, 0)"] * rank
    widths[k] = f"(0, {amount})"
    return f"jnp.pad(x, ({widths[0]},))" if rank == 1 else f"jnp.pad(x, ({', '.join(widths)}))"


def rewrite_codes(dtype: str, dims, memory_axes) -> list[str]:
    """memory_axes: the array's dims in memory order, most major first (its major_to_minor)."""
    rank = len(dims)
    codes = reshape_codes("x", dims)
    if rank >= 2:
        identity = tuple(range(rank))
        codes += [f"jnp.transpose(x, {python_tuple(p)})" for p in itertools.permutations(identity)
                  if p != identity]
        if tuple(memory_axes) != identity:
            prefix = f"jnp.transpose(x, {python_tuple(memory_axes)})"
            codes += reshape_codes(prefix, [dims[a] for a in memory_axes])
    if dtype == "pred":
        codes.append("jnp.packbits(x)")
        if rank >= 2:
            codes.append("jnp.packbits(x, axis=-1)")
    for k in range(rank):
        for granule in (2, 8, 128):
            n = -(-dims[k] // granule) * granule
            if n == dims[k]:
                continue
            padded = list(dims)
            padded[k] = n
            prefix = pad_text(rank, k, n - dims[k])
            codes += [prefix] + reshape_codes(prefix, padded)
    return list(dict.fromkeys(codes))  # a pad to 8 can be the pad to 2: once


DIMS = [1, 2, 3, 4, 5, 7, 8, 9, 16, 31, 33, 100, 127, 128, 129, 200, 257]
TYPES = ["f32", "bf16", "s8", "pred", "s4", "s32"]
# The arrays: f32[7,5,5,1] (a flatten takes 1 KiB), f32[10,100,3] (the flatten beats the
# pad), the shard f32[250,100,3] of f32[1997,100,3] over 8, f32[1024,3], and an intermediate
# written row-major, as OOM reports print them (s32[2048,1,128,128,4]'s problem, smaller).
NAMED = [("f32", [7, 5, 5, 1], None), ("f32", [10, 100, 3], None), ("f32", [250, 100, 3], None),
         ("f32", [1024, 3], None), ("s32", [2, 1, 8, 128, 4], [0, 1, 2, 3, 4]),
         ("f32", [3, 1024], [1, 0]), ("pred", [1000, 3], None), ("bf16", [1, 1, 100], None)]


def sample(seed: int = 39, count: int = 300):
    """(dtype, dims, major_to_minor or None): small dims, rank 1-4, a third of them with a
    layout the program fixed (a random order)."""
    rng = random.Random(seed)
    out = list(NAMED)
    while len(out) < count:
        rank = rng.randint(1, 4)
        dims = [rng.choice(DIMS) for _ in range(rank)]
        if math.prod(dims) > 1 << 12:  # the compiler takes seconds per rewrite of a big one
            continue
        order = None
        if rank >= 2 and rng.random() < 0.33:
            order = list(range(rank))
            rng.shuffle(order)
        out.append((rng.choice(TYPES), dims, order))
    return out


def rewrites(oracle, target: str = "tpu-v5e") -> list[dict]:
    out = []
    for dtype, dims, order in sample():
        # The array's own layout first: its memory order decides the memory-order groupings.
        first = oracle.rewrite_layouts(dtype, dims, ["x"], target, order)
        layout = first["input_layout"]
        m2m = [int(d) for d in layout[layout.index("{") + 1:].split(":")[0].rstrip("}").split(",") if d]
        memory_axes = list(reversed(m2m))
        codes = rewrite_codes(dtype, dims, memory_axes)
        answer = oracle.rewrite_layouts(dtype, dims, codes, target, order)
        out.append({"array": f"{dtype}[{','.join(map(str, dims))}]",
                    "major_to_minor": order, "input_layout": answer["input_layout"],
                    "codes": codes, "layouts": answer["layouts"]})
    return out
