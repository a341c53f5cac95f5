"""tessera.Layout and tessera.IndexMap: the spec's numbers, random layouts against the independent
NumPy model (reference_layout.py), vectorised maps, errors."""

import pickle

import numpy as np
import pytest
from hypothesis import given

import reference_layout as ref
import tessera
from strategies import layout_specs


def all_indices(dims):
    return np.indices(dims).reshape(len(dims), -1).T.reshape(tuple(dims) + (len(dims),))


# --- the spec's worked examples, named after their sections ----------------------------------


def test_linear_index_formulas_figure1_element_2_3_is_17():
    layout = tessera.Layout.parse("F32[3,5]{1,0:T(2,2)}")
    assert str(layout) == "f32[3,5]{1,0:T(2,2)}"
    assert layout.linear_index((2, 3)) == 17
    assert layout.unindex(17) == (2, 3)
    assert layout.physical_dims == (2, 3, 2, 2)
    assert layout.size_bytes == 24 * 4
    assert layout.padding_fraction == pytest.approx(9 / 24)


def test_tiling_as_pad_reshape_transpose_figure1_steps():
    step = tessera.Layout("f32[3,5]{1,0:T(2,2)}").info()["steps"][0]
    assert step["padded_dims"] == [4, 6]
    assert step["reshaped_dims"] == [2, 2, 3, 2]
    assert step["output_dims"] == [2, 3, 2, 2]


def test_repeated_tiling_figure2_4x8_by_2x4_then_2x1():
    layout = tessera.Layout("bf16[4,8]{1,0:T(2,4)(2,1)}")
    offsets = layout.linear_indices(all_indices((4, 8)))
    # The first 2x4 tile: rows 0 and 1 interleave column by column (the 2x1 packing).
    assert offsets[0, :4].tolist() == [0, 2, 4, 6]
    assert offsets[1, :4].tolist() == [1, 3, 5, 7]
    assert offsets[0, 4] == 8
    assert layout.size_bytes == 64


def test_alternative_16_bit_format_red_dot_6_5_is_51():
    layout = tessera.Layout("bf16[8,8]{1,0:T(2,4)(2,1,1,1)}")
    assert layout.linear_index((6, 5)) == 51
    assert tessera.Layout("bf16[32,256]{1,0:T(8,128)(2,1,1,1)}").physical_dims == (2, 2, 8, 128, 2, 1, 1, 1)


def test_combining_dimensions_f32_2_7_8_11_10():
    layout = tessera.Layout("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}")
    assert layout.physical_dims == (56, 37, 2, 3)
    assert layout.info()["steps"][0]["combined_dims"] == [112, 110]


# --- random layouts against the independent model --------------------------------------------


@given(layout_specs())
def test_random_layouts_match_pad_reshape_transpose(spec):
    layout = tessera.Layout(spec.text())
    assert str(layout) == spec.text()
    assert layout.dims == spec.dims
    sources = ref.physical_sources(spec)
    assert layout.physical_elements == len(sources)
    assert layout.padding_fraction == pytest.approx(1 - layout.logical_elements / len(sources))
    if spec.dims:
        expected = ref.linear_indices(spec)
        assert np.array_equal(layout.linear_indices(all_indices(spec.dims)), expected)
    inverse = layout.logical_indices(np.arange(len(sources)))
    flat = np.where(sources >= 0, sources, -1)
    if spec.dims:
        got_flat = np.where(
            inverse[:, 0] >= 0, np.ravel_multi_index(tuple(np.maximum(inverse, 0).T), spec.dims), -1
        )
        assert np.array_equal(got_flat, flat)
        assert np.all((inverse >= 0).all(axis=1) == (inverse[:, 0] >= 0))


@given(layout_specs(max_rank=3, max_dim=5))
def test_scalar_maps_agree_with_vectorised_maps(spec):
    layout = tessera.Layout(spec.text())
    if not spec.dims:
        return
    indices = all_indices(spec.dims).reshape(-1, len(spec.dims))
    offsets = layout.linear_indices(indices)
    for index, offset in zip(indices[:40], offsets[:40]):
        assert layout.linear_index(tuple(index)) == offset
        assert layout.unindex(int(offset)) == tuple(index)
        assert layout.index_map.linear_index(list(index)) == offset


def test_vectorised_maps_keep_leading_shape_and_accept_lists():
    layout = tessera.Layout("f32[3,5]{1,0:T(2,2)}")
    assert layout.linear_indices([[2, 3], [0, 0]]).tolist() == [17, 0]
    offsets = layout.linear_indices(all_indices((3, 5)))
    assert offsets.shape == (3, 5) and offsets.dtype == np.int64
    back = layout.logical_indices(offsets)
    assert back.shape == (3, 5, 2)
    assert np.array_equal(back, all_indices((3, 5)))
    assert layout.logical_indices(np.array([[17, 23]])).tolist() == [[[2, 3], [-1, -1]]]


def test_index_map_exposes_the_digit_form():
    index_map = tessera.Layout("f32[3,5]{1,0:T(2,2)}").index_map
    assert index_map.dims == (3, 5)
    assert index_map.size_elements == 24 and index_map.element_bits == 32
    assert index_map.has_digit_form
    assert sorted(index_map.digits) == sorted([(0, 2, 2, 12), (0, 1, 2, 2), (1, 2, 3, 4), (1, 1, 2, 1)])


def test_sizes_of_sub_byte_and_wide_elements():
    assert tessera.Layout("s4[3,5]{1,0:E(4)}").size_bytes == 8
    assert tessera.Layout("s4[3,5]{1,0}").size_bytes == 15
    assert tessera.Layout("pred[64,64]{1,0:T(32,128)(32,1)E(1)}").size_bytes == 64 * 128 // 8
    layout = tessera.Layout("s32[2048,1,128,128,4]{4,3,2,1,0:T(8,128)}")
    assert layout.logical_bytes * 32 == layout.size_bytes


def test_equality_hash_and_pickle_use_the_canonical_form():
    a = tessera.Layout("F32[3, 5]{1,0:T(2,2)}")
    b = tessera.Layout.parse("f32[3,5]{1,0:T(2,2)}")
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert pickle.loads(pickle.dumps(a)) == a
    assert repr(a) == "Layout('f32[3,5]{1,0:T(2,2)}')"
    assert a != tessera.Layout("f32[3,5]{0,1:T(2,2)}")
    assert a != "f32[3,5]{1,0:T(2,2)}" and a != None  # noqa: E711 - other types are not equal


# --- errors are ValueErrors with the CLI's messages -----------------------------------------


@pytest.mark.parametrize(
    "text, error",
    [
        ("f32[3,5]{1,0:T(0,2)}", tessera.InvalidLayoutError),
        ("f32[3,5]{1,0:T(2,*)}", tessera.InvalidLayoutError),
        ("f32[3,5]{1,0:L(0)}", tessera.InvalidLayoutError),
        ("f32[3,5]{1,1}", tessera.InvalidLayoutError),
        ("f32[3,5", tessera.NotationError),
        ("q32[3,5]", tessera.NotationError),
        ("", tessera.NotationError),
    ],
)
def test_bad_layouts_raise_value_errors(text, error):
    with pytest.raises(error) as caught:
        tessera.Layout(text)
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, tessera.Error)
    assert str(caught.value)


def test_out_of_range_indices_and_offsets():
    layout = tessera.Layout("f32[3,5]{1,0:T(2,2)}")
    with pytest.raises(tessera.OutOfRangeError, match="outside"):
        layout.linear_index((3, 0))
    with pytest.raises(tessera.OutOfRangeError):
        layout.linear_index((1,))
    with pytest.raises(tessera.OutOfRangeError):
        layout.unindex(24)
    with pytest.raises(tessera.OutOfRangeError):
        layout.unindex(-1)
    with pytest.raises(tessera.OutOfRangeError):
        layout.linear_indices([[0, 0], [0, 5]])
    with pytest.raises(tessera.OutOfRangeError):
        layout.logical_indices([0, 24])
    with pytest.raises(tessera.Error, match=r"shape \[\.\.\., 2\]"):
        layout.linear_indices(np.zeros((4, 3), dtype=np.int64))
