"""Hypothesis strategies for random XLA layouts (valid ones: tessera and XLA must accept them)."""

from __future__ import annotations

from hypothesis import strategies as st

from reference_layout import COMBINE, LayoutSpec

# (XLA type, bits of the NumPy storage, E(n) values worth trying besides the default)
DTYPES = {
    "f32": (32, ()),
    "bf16": (16, ()),
    "f16": (16, ()),
    "s8": (8, ()),
    "u8": (8, ()),
    "s16": (16, ()),
    "s32": (32, ()),
    "f64": (64, ()),
    "c64": (64, ()),
    "pred": (8, (1,)),
    "s4": (8, (4,)),
    "u4": (8, (4,)),
    "s2": (8, (2,)),
    "f8e4m3fn": (8, ()),
    "f8e5m2": (8, ()),
}


@st.composite
def tiles(draw, rank: int) -> tuple[int, ...]:
    """One tile: covers a suffix of the (possibly prepended-to) shape; '*' never most minor."""
    length = draw(st.integers(1, rank + 1))
    entries = [draw(st.integers(1, 6)) for _ in range(length)]
    for i in range(length - 1):
        if draw(st.integers(0, 5)) == 0:
            entries[i] = COMBINE
    return tuple(entries)


@st.composite
def layout_specs(draw, max_rank: int = 4, max_dim: int = 9, dtypes=tuple(DTYPES)) -> LayoutSpec:
    dtype = draw(st.sampled_from(dtypes))
    rank = draw(st.integers(0, max_rank))
    dims = tuple(draw(st.integers(1, max_dim)) for _ in range(rank))
    minor_to_major = tuple(draw(st.permutations(range(rank))))
    levels = draw(st.integers(0, 3))
    tile_list = []
    physical_rank = rank
    for _ in range(levels):
        tile = draw(tiles(max(physical_rank, 1)))
        tile_list.append(tile)
        # the tiled shape of this level is what the next level tiles
        kept = sum(1 for t in tile if t != COMBINE)
        physical_rank = max(physical_rank, len(tile)) - (len(tile) - kept) + kept
    tail = draw(st.sampled_from([1, 1, 1, 2, 3, 8]))
    _, e_values = DTYPES[dtype]
    element_bits = draw(st.sampled_from((None,) + e_values))
    return LayoutSpec(dtype, dims, minor_to_major, tuple(tile_list), tail, element_bits)
