"""An independent, pure-NumPy model of XLA tiled layouts, written straight from the spec
(docs/design/tiled-layouts.md: "Tiling as pad, reshape, transpose", "Repeated tiling", "Combining dimensions
using tiles") and sharing no code with tessera. Used as the oracle of the property tests.

The trick: run the array of *logical flat indices* (arange) through the spec's steps, padding with
-1. The result, flattened, says for every physical element which logical element it holds (or -1
for padding): the whole layout as one array.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

COMBINE = -1  # '*' in a tile


@dataclass(frozen=True)
class LayoutSpec:
    """What the notation says: dtype[dims]{minor_to_major:T(..)(..)L(n)E(n)}."""

    dtype: str
    dims: tuple[int, ...]
    minor_to_major: tuple[int, ...]
    tiles: tuple[tuple[int, ...], ...] = ()
    tail_alignment: int = 1
    element_bits: int | None = None  # E(n); None for the type's default storage
    memory_space: int = 0

    def text(self) -> str:
        """The canonical notation, as XLA prints it (properties in the order T L E S)."""
        dims = ",".join(str(d) for d in self.dims)
        props = "".join(
            "(" + ",".join("*" if t == COMBINE else str(t) for t in tile) + ")"
            for tile in self.tiles
        )
        parts = ("T" + props) if self.tiles else ""
        if self.tail_alignment != 1:
            parts += f"L({self.tail_alignment})"
        if self.element_bits is not None:
            parts += f"E({self.element_bits})"
        if self.memory_space:
            parts += f"S({self.memory_space})"
        m2m = ",".join(str(d) for d in self.minor_to_major)
        layout = m2m + (":" + parts if parts else "")
        if not self.dims and not parts:
            return f"{self.dtype}[]"
        return f"{self.dtype}[{dims}]{{{layout}}}"


def _tile_once(array: np.ndarray, tile: tuple[int, ...]) -> np.ndarray:
    """One level of tiling of `array` (already in physical order) by `tile`, padding with -1."""
    if len(tile) > array.ndim:  # a tile longer than the shape tiles leading size-1 dims
        array = array.reshape((1,) * (len(tile) - array.ndim) + array.shape)
    prefix = array.shape[: array.ndim - len(tile)]
    tiled = list(array.shape[array.ndim - len(tile) :])
    sizes = list(tile)
    # '*': fold that dimension into the next more minor one (spec: combining dimensions).
    i = 0
    while i < len(sizes):
        if sizes[i] == COMBINE:
            tiled[i + 1] *= tiled[i]
            del tiled[i], sizes[i]
        else:
            i += 1
    array = array.reshape(prefix + tuple(tiled))
    # 1. pad every tiled dimension up to a multiple of its tile.
    counts = [-(-d // t) for d, t in zip(tiled, sizes)]
    pad = [(0, 0)] * len(prefix) + [(0, c * t - d) for c, t, d in zip(counts, sizes, tiled)]
    array = np.pad(array, pad, constant_values=-1)
    # 2. reshape each tiled dimension into (count, tile).
    split = prefix + tuple(x for c, t in zip(counts, sizes) for x in (c, t))
    array = array.reshape(split)
    # 3. transpose: tile dims to the minor end, keeping their order.
    p = len(prefix)
    order = list(range(p)) + [p + 2 * k for k in range(len(sizes))]
    order += [p + 2 * k + 1 for k in range(len(sizes))]
    return array.transpose(order)


def physical_sources(spec: LayoutSpec) -> np.ndarray:
    """For every element of the physical buffer, the flat (row-major) logical index it holds, or
    -1 for padding. Its length is the buffer's element count (L(n) included)."""
    logical = np.arange(int(np.prod(spec.dims, dtype=np.int64)), dtype=np.int64).reshape(spec.dims)
    major_to_minor = tuple(reversed(spec.minor_to_major))
    array = logical.transpose(major_to_minor) if spec.dims else logical
    for tile in spec.tiles:
        array = _tile_once(array, tile)
    flat = array.reshape(-1)
    tail = -len(flat) % spec.tail_alignment
    return np.concatenate([flat, np.full(tail, -1, dtype=np.int64)])


def linear_indices(spec: LayoutSpec) -> np.ndarray:
    """Offset of every logical element, as an array of shape `dims`."""
    sources = physical_sources(spec)
    offsets = np.empty(int(np.prod(spec.dims, dtype=np.int64)), dtype=np.int64)
    data = np.nonzero(sources >= 0)[0]
    offsets[sources[data]] = data
    return offsets.reshape(spec.dims)


def pack_bits(values: np.ndarray, bits: int) -> np.ndarray:
    """Packs unsigned integer `values` (one per element) into bytes, `bits` each, low bits first
    (element k occupies bits [k*bits, (k+1)*bits) of the little-endian bit stream)."""
    assert 8 % bits == 0
    per_byte = 8 // bits
    values = values.astype(np.uint8) & ((1 << bits) - 1)
    values = np.concatenate([values, np.zeros(-len(values) % per_byte, dtype=np.uint8)])
    shifts = (np.arange(per_byte, dtype=np.uint8) * bits).astype(np.uint8)
    return np.bitwise_or.reduce(values.reshape(-1, per_byte) << shifts, axis=1).astype(np.uint8)


def to_physical(array: np.ndarray, spec: LayoutSpec, storage_bits: int, fill: int = 0) -> np.ndarray:
    """The physical bytes of `array` in the layout: gather through physical_sources, fill the
    padding, then pack sub-byte elements (E(n) < 8) or widen (E(n) > the NumPy item size)."""
    sources = physical_sources(spec)
    flat = np.ascontiguousarray(array).reshape(-1)
    itemsize = flat.dtype.itemsize
    raw = flat.view(np.uint8).reshape(-1, itemsize)
    fill_bytes = np.array([fill], dtype=flat.dtype).view(np.uint8)
    out = np.where((sources >= 0)[:, None], raw[np.maximum(sources, 0)], fill_bytes[None, :])
    if storage_bits < 8:
        return pack_bits(out[:, 0], storage_bits)
    width = storage_bits // 8
    if width > itemsize:  # e.g. pred with E(32): the value in the low byte(s), zeros above
        out = np.concatenate([out, np.zeros((len(out), width - itemsize), np.uint8)], axis=1)
    return out.reshape(-1).astype(np.uint8)
