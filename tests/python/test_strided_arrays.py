"""Any strided NumPy array goes into and out of a layout without a C-order copy ("Python
without extra copies"): Fortran order, transposes, slices with steps, reversed and broadcast views
are read in place by to_physical and written in place by from_physical(out=...)."""

import tracemalloc

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tessera
from strategies import layout_specs
from test_conversion import random_array

# Element types of every storage width (sub-byte types: NumPy stores one per byte).
DTYPES = ("f32", "bf16", "s8", "u8", "s16", "f64", "c64", "pred", "s4")


def raw_bytes(array: np.ndarray) -> np.ndarray:
    """The elements' bytes in row-major order (byte comparison is value comparison, NaN too)."""
    return np.array(array, order="C").reshape(-1).view(np.uint8)


@st.composite
def view_recipes(draw, rank: int):
    """How to cut a view out of a parent buffer: the parent's memory order of the logical axes
    (slowest first), a step per axis, which axes run backwards, and spare elements per axis."""
    return (
        tuple(draw(st.permutations(range(rank)))),
        tuple(draw(st.integers(1, 3)) for _ in range(rank)),
        tuple(draw(st.booleans()) for _ in range(rank)),
        tuple(draw(st.integers(0, 2)) for _ in range(rank)),
    )


def parent_shape(recipe, shape):
    order, steps, _, spare = recipe
    return tuple(shape[axis] * steps[axis] + spare[axis] for axis in order)


def cut_view(recipe, shape, parent: np.ndarray) -> np.ndarray:
    """The view of `parent` with logical shape `shape`: stepped, reversed, transposed."""
    order, steps, backwards, _ = recipe
    window = tuple(
        slice((shape[axis] - 1) * steps[axis], None, -steps[axis])
        if backwards[axis]
        else slice(0, shape[axis] * steps[axis], steps[axis])
        for axis in order
    )
    view = parent[window] if window else parent[...]
    return view.transpose(np.argsort(order)) if len(order) else view


def random_parent(recipe, shape, dtype, seed) -> np.ndarray:
    size = int(np.prod(parent_shape(recipe, shape), dtype=np.int64)) * dtype.itemsize
    noise = np.random.default_rng(seed).integers(0, 256, size, dtype=np.uint8)
    return noise.view(dtype).reshape(parent_shape(recipe, shape))


@given(layout_specs(max_rank=4, max_dim=9, dtypes=DTYPES), st.integers(0, 2**32), st.data())
def test_strided_views_convert_like_their_row_major_copies(spec, seed, data):
    x = random_array(spec, seed)
    dtype = x.dtype
    layout = tessera.Layout(spec.text())
    source_recipe = data.draw(view_recipes(x.ndim))
    view = cut_view(source_recipe, x.shape, np.zeros(parent_shape(source_recipe, x.shape), dtype))
    view[...] = x
    physical = tessera.to_physical(view, layout, fill=1)
    assert np.array_equal(physical, tessera.to_physical(np.array(view, order="C"), layout, fill=1))

    # Back into another strided view: every element in place, the bytes between them untouched.
    recipe = data.draw(view_recipes(x.ndim))
    parent = random_parent(recipe, x.shape, dtype, seed + 1)
    expected = parent.copy()
    cut_view(recipe, x.shape, expected)[...] = x
    out = cut_view(recipe, x.shape, parent)
    assert tessera.from_physical(physical, layout, out=out) is out
    assert np.array_equal(raw_bytes(parent), raw_bytes(expected))


@pytest.mark.parametrize("threads", [1, 2])
def test_fortran_transposed_reversed_sliced_and_broadcast_sources(threads):
    layout = "f32[300,500]{1,0:T(8,128)}"
    x = np.random.default_rng(1).random((300, 500), dtype=np.float32)
    expected = tessera.to_physical(x, layout)
    views = {
        "fortran": np.asfortranarray(x),
        "transposed": np.ascontiguousarray(x.T).T,
        "reversed rows": np.ascontiguousarray(x[::-1])[::-1],
        "reversed columns": np.ascontiguousarray(x[:, ::-1])[:, ::-1],
        "stepped": np.repeat(x, 3, axis=1)[:, ::3],
        "both reversed, Fortran": np.asfortranarray(x[::-1, ::-1])[::-1, ::-1],
    }
    for name, view in views.items():
        assert not view.flags.c_contiguous, name
        assert np.array_equal(tessera.to_physical(view, layout, threads=threads), expected), name
        back = np.zeros_like(view)
        assert np.array_equal(tessera.from_physical(expected, layout, out=back, threads=threads), x), name
    row = np.arange(500, dtype=np.float32)
    broadcast = np.broadcast_to(row, (300, 500))
    assert broadcast.strides == (0, 4)
    assert np.array_equal(
        tessera.to_physical(broadcast, layout), tessera.to_physical(np.ascontiguousarray(broadcast), layout)
    )


def test_destinations_that_cannot_hold_every_element_are_refused_by_the_library():
    layout = "f32[3,5]{1,0:T(2,2)}"
    physical = tessera.to_physical(np.ones((3, 5), np.float32), layout)
    shared = np.lib.stride_tricks.as_strided(np.zeros(5, np.float32), shape=(3, 5), strides=(0, 4))
    assert shared.flags.writeable
    broadcast = r"^dimension 0 of the strided destination has stride 0 \(a broadcast view\)"
    with pytest.raises(tessera.ArgumentError, match=broadcast):
        tessera.from_physical(physical, layout, out=shared)
    overlapping = np.lib.stride_tricks.as_strided(np.zeros(8, np.float32), shape=(3, 5), strides=(4, 4))
    with pytest.raises(tessera.ArgumentError, match="elements would overlap"):
        tessera.from_physical(physical, layout, out=overlapping)
    # The same words as the library's own check, which the C++ API and the plan use.
    with pytest.raises(tessera.ArgumentError) as raised:
        tessera.StridedArray([3, 5], 32, [0, 4]).footprint(destination=True)
    with pytest.raises(tessera.ArgumentError) as again:
        tessera.from_physical(physical, layout, out=shared)
    assert str(raised.value) == str(again.value)
    with pytest.raises(tessera.ArgumentError, match="read-only"):
        tessera.from_physical(physical, layout, out=np.broadcast_to(np.zeros(5, np.float32), (3, 5)))


def test_strides_that_are_not_whole_elements():
    """NumPy allows them (np.ndarray with strides=): a source is copied first (the right bytes), a
    destination is refused by the library; never a wrong answer."""
    layout = "f32[3,5]{1,0:T(2,2)}"
    x = np.arange(15, dtype=np.float32).reshape(3, 5)
    buffer = np.zeros(3 * 22 + 4, np.uint8)
    odd = np.ndarray((3, 5), np.float32, buffer=buffer, offset=0, strides=(22, 4))
    odd[...] = x
    assert np.array_equal(tessera.to_physical(odd, layout), tessera.to_physical(x, layout))
    with pytest.raises(tessera.ArgumentError, match="stride of 22 bytes, not a multiple of its 4-byte elements"):
        tessera.from_physical(tessera.to_physical(x, layout), layout, out=odd)


def test_footprints_as_the_library_computes_them():
    assert tessera.StridedArray([3, 5], 32, [20, -4]).footprint(destination=False) == (16, 60)
    assert tessera.StridedArray([3, 5], 32, [4, 12]).footprint(destination=True) == (0, 60)


def test_no_c_order_copy_of_a_fortran_array():
    """tracemalloc sees NumPy's allocations (a C-order copy would be 64 MiB); the output buffer
    comes from tessera.empty_bytes, outside the Python allocator."""
    layout = "f32[4096,4096]{1,0:T(8,128)}"
    x = np.asfortranarray(np.random.default_rng(2).random((4096, 4096), dtype=np.float32))
    expected = tessera.to_physical(np.ascontiguousarray(x), layout)
    out = np.empty_like(x, order="F")
    tessera.to_physical(x, layout)  # plans cached: the measured calls allocate only buffers
    tessera.from_physical(expected, layout, out=out)
    tracemalloc.start()
    try:
        physical = tessera.to_physical(x, layout)
        tessera.from_physical(physical, layout, out=out)
        tessera.to_physical(x[::-1, ::2], "f32[4096,2048]{1,0:T(8,128)}")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < (1 << 20), f"{peak} bytes allocated through NumPy"
    assert np.array_equal(physical, expected)
    assert np.array_equal(out, x)
    # The check itself can fail: the old path (a C-order copy first) allocates the whole array.
    tracemalloc.start()
    try:
        np.asarray(x, order="C")
        _, copy_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert copy_peak >= x.nbytes
