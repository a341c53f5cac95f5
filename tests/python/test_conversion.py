"""to_physical / from_physical / convert (the C++ relayout engine) against the independent NumPy
model of the spec (reference_layout.py): bytes, padding fill, sub-byte packing, round trips."""

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import reference_layout as ref
import tessera
from strategies import DTYPES, layout_specs

SUB_BYTE_BITS = {"pred": 1, "s4": 4, "u4": 4, "s2": 2}


def random_array(spec, seed):
    """Random values of the spec's type whose bytes are canonical (sub-byte values in the low
    bits, pred 0/1), so that byte-wise comparison is value comparison (NaNs included)."""
    rng = np.random.default_rng(seed)
    dtype = tessera.numpy_dtype(spec.dtype)
    raw = rng.integers(0, 256, size=int(np.prod(spec.dims, dtype=np.int64)) * dtype.itemsize, dtype=np.uint8)
    if spec.dtype in SUB_BYTE_BITS:
        raw &= (1 << SUB_BYTE_BITS[spec.dtype]) - 1
    return raw.view(dtype).reshape(spec.dims)


def storage_bits(spec):
    return spec.element_bits or DTYPES[spec.dtype][0]


@given(layout_specs(max_rank=4, max_dim=20), st.integers(0, 2**32), st.sampled_from([0, 1]))
def test_to_physical_matches_pad_reshape_transpose(spec, seed, fill):
    x = random_array(spec, seed)
    layout = tessera.Layout(spec.text())
    physical = tessera.to_physical(x, layout, fill=fill)
    assert physical.dtype == np.uint8 and physical.shape == (layout.size_bytes,)
    expected = ref.to_physical(x, spec, storage_bits(spec), fill=fill)
    assert np.array_equal(physical, expected)
    back = tessera.from_physical(physical, layout)
    assert back.dtype == x.dtype and back.shape == x.shape
    assert np.array_equal(back.reshape(-1).view(np.uint8), x.reshape(-1).view(np.uint8))


@given(layout_specs(max_rank=3, max_dim=12), layout_specs(max_rank=3, max_dim=12), st.integers(0, 2**32))
def test_convert_between_two_random_layouts_of_one_array(spec_a, spec_b, seed):
    # Give B the logical array of A (same dtype and dims), keep B's own order and tiles when they fit.
    spec_b = ref.LayoutSpec(spec_a.dtype, spec_a.dims, spec_a.minor_to_major[::-1], spec_b.tiles, spec_b.tail_alignment)
    try:
        layout_b = tessera.Layout(spec_b.text())
    except tessera.Error:
        layout_b = tessera.Layout(ref.LayoutSpec(spec_a.dtype, spec_a.dims, spec_b.minor_to_major).text())
    layout_a = tessera.Layout(spec_a.text())
    x = random_array(spec_a, seed)
    a_bytes = tessera.to_physical(x, layout_a)
    b_bytes = tessera.convert(a_bytes, layout_a, layout_b)
    assert np.array_equal(b_bytes, tessera.to_physical(x, layout_b))
    assert np.array_equal(tessera.convert(b_bytes, layout_b, layout_a), a_bytes)


def test_spec_figure1_bytes():
    x = np.arange(15, dtype=np.float32).reshape(3, 5)
    physical = tessera.to_physical(x, "f32[3,5]{1,0:T(2,2)}", fill=-1)
    assert physical.view(np.float32)[:12].tolist() == [0, 1, 5, 6, 2, 3, 7, 8, 4, -1, 9, -1]
    assert physical.view(np.float32)[17] == 13  # element (2,3) at linear index 17


def test_bf16_tpu_packing_interleaves_row_pairs():
    x = np.zeros((16, 256), dtype=ml_dtypes.bfloat16)
    x[0, 0], x[1, 0], x[0, 1], x[1, 1], x[2, 0] = 1, 2, 3, 4, 5
    physical = tessera.to_physical(x, "bf16[16,256]{1,0:T(8,128)(2,1)}").view(ml_dtypes.bfloat16)
    assert physical[:4].astype(np.float32).tolist() == [1, 2, 3, 4]  # rows 0 and 1 interleaved
    assert physical[256] == 5  # rows 2 and 3 follow: 128 columns x 2 rows later


def test_sub_byte_packing_low_bits_first():
    x = np.array([[1, -1, 2, -8]], dtype=ml_dtypes.int4)
    assert tessera.to_physical(x, "s4[1,4]{1,0:E(4)}").tolist() == [0xF1, 0x82]
    bits = np.array([[True, False, True, True, False, False, False, True, True]])
    assert tessera.to_physical(bits, "pred[1,9]{1,0:E(1)}").tolist() == [0b10001101, 0b1]
    assert np.array_equal(tessera.from_physical(bytes([0b10001101, 0b1]), "pred[1,9]{1,0:E(1)}"), bits)


def test_out_buffers_and_keep_padding():
    layout = tessera.Layout("f32[3,5]{1,0:T(2,2)}")
    x = np.arange(15, dtype=np.float32).reshape(3, 5)
    out = np.full(layout.size_bytes, 0xAB, dtype=np.uint8)
    assert tessera.to_physical(x, layout, out=out, keep_padding=True) is out
    assert out[9 * 4 : 10 * 4].tolist() == [0xAB] * 4  # a padding element kept
    assert out.view(np.float32)[17] == 13
    back = np.empty((3, 5), dtype=np.float32)
    assert tessera.from_physical(out, layout, out=back) is back
    assert np.array_equal(back, x)


def test_non_contiguous_input_and_bytes_objects():
    x = np.arange(30, dtype=np.int32).reshape(5, 6).T  # a transposed view
    layout = tessera.Layout("s32[6,5]{0,1:T(4,2)}")
    physical = tessera.to_physical(x, layout)
    assert np.array_equal(tessera.from_physical(bytes(physical), layout), x)
    assert np.array_equal(tessera.from_physical(bytearray(physical), layout), x)


def test_plans_are_reusable_objects():
    row_major = tessera.Layout("f32[64,256]{1,0}")
    tiled = tessera.Layout("f32[64,256]{1,0:T(8,128)}")
    plan = tessera.Relayout(row_major.index_map, tiled.index_map, threads=1)
    assert plan.source_bytes == plan.destination_bytes == 64 * 256 * 4
    assert plan.describe()
    x = np.random.default_rng(0).random((64, 256), dtype=np.float32)
    out = tessera.empty_bytes(plan.destination_bytes)
    plan.execute(x.reshape(-1).view(np.uint8), out)
    assert np.array_equal(out, tessera.to_physical(x, tiled))


def test_repeated_conversions_reuse_plans_without_mixing_them_up():
    # to_physical/from_physical keep recent plans; the key must tell apart everything a plan
    # depends on: the layout (by value or by its text), the fill, keep_padding, the dtype.
    text = "f32[5,7]{1,0:T(2,4)}"
    x = np.arange(35, dtype=np.float32).reshape(5, 7)
    first = tessera.to_physical(x, text)
    for layout in (text, tessera.Layout(text), tessera.Layout(text)):
        assert np.array_equal(tessera.to_physical(x, layout), first)
        assert np.array_equal(tessera.to_physical(x + 1, layout).view(np.float32)[:2], [1, 2])
        assert np.array_equal(tessera.from_physical(first, layout), x)
    filled = tessera.to_physical(x, text, fill=-1.5).view(np.float32)
    assert np.count_nonzero(filled == -1.5) == 6 * 8 - 35
    assert np.count_nonzero(tessera.to_physical(x, text).view(np.float32) == -1.5) == 0
    out = np.full(first.size, 7, dtype=np.uint8)
    tessera.to_physical(x, text, out=out, keep_padding=True)
    assert np.count_nonzero(out.view(np.float32) == np.frombuffer(bytes([7] * 4), np.float32)[0]) == 13
    with pytest.raises(tessera.ArgumentError):
        tessera.to_physical(x.astype(np.float64), text)  # same shape, another dtype: not a hit
    with pytest.raises(tessera.ArgumentError):
        tessera.to_physical(x.astype(np.float64), text)  # and failures are not cached either


def test_conversion_errors():
    layout = tessera.Layout("f32[3,5]{1,0:T(2,2)}")
    with pytest.raises(tessera.ArgumentError, match="dtype"):
        tessera.to_physical(np.zeros((3, 5), np.float64), layout)
    with pytest.raises(tessera.ArgumentError, match="shape"):
        tessera.to_physical(np.zeros((5, 3), np.float32), layout)
    with pytest.raises(tessera.BufferSizeError):
        tessera.from_physical(np.zeros(95, np.uint8), layout)
    with pytest.raises(tessera.BufferSizeError):
        tessera.to_physical(np.zeros((3, 5), np.float32), layout, out=np.zeros(10, np.uint8))
    with pytest.raises(tessera.BufferSizeError):
        tessera.Relayout(layout.index_map, layout.index_map).execute(np.zeros(95, np.uint8), np.zeros(96, np.uint8))
    with pytest.raises(tessera.InvalidLayoutError):
        tessera.convert(np.zeros(96, np.uint8), layout, "f32[5,3]{1,0}")
    with pytest.raises(tessera.UnsupportedError):
        tessera.to_physical(np.zeros((3, 5), dtype=object), layout)
    with pytest.raises(TypeError):
        tessera.to_physical(np.zeros((3, 5), np.float32), 42)
    with pytest.raises(tessera.NotationError):
        tessera.to_physical(np.zeros((3, 5), np.float32), "f32[3,5")


def test_storage_wider_than_64_bits_is_refused():
    """Regression (security): a sub-byte layout to or from E(n) > 64 leaked stack bytes."""
    with pytest.raises(tessera.InvalidLayoutError, match="wider than 64 bits"):
        tessera.convert(np.full(1, 7, np.uint8), "s4[1]{0:E(4)}", "s4[1]{0:E(65536)}")
    with pytest.raises(tessera.InvalidLayoutError, match="wider than 64 bits"):
        tessera.convert(np.full(8192, 0x41, np.uint8), "s4[1]{0:E(65536)}", "s4[1]{0:E(4)}")


@pytest.mark.parametrize(
    "device, shape, dtype, address, layout, mode",
    [
        ("npus=4,lmem=1024,align=128", (2, 3, 4, 5), "f32", 2048, "aligned", "none"),
        ("npus=4,lmem=1024,align=128", (2, 6, 2, 3), "f16", 772, "compact", "none"),
        ("npus=4,lmem=1024,align=128", (6, 5, 4, 5), "s8", 0, "compact", "4N"),
        ("npus=4,lmem=1024,align=128", (3, 5, 2, 2), "bf16", 1024, "aligned", "2N"),
        ("npus=4,lmem=2048,align=64", (4, 3, 2, 2), "f32", 64, "aligned", "2IC"),
        ("npus=8,lmem=4096,align=16", (2, 9, 3, 3), "s32", 0, (200, 24, 4, 1), "none"),
    ],
)
def test_to_physical_into_npu_local_memory_puts_each_element_at_its_place(device, shape, dtype, address, layout, mode):
    tensor = tessera.npu.Tensor(device, shape, dtype, address=address, layout=layout, mode=mode)
    x = random_array(ref.LayoutSpec(dtype, shape, (3, 2, 1, 0)), 7)
    image = tessera.to_physical(x, tensor, fill=0)
    assert image.size == tensor.device.total_bytes
    indices = np.indices(shape).reshape(4, -1).T
    places = tensor.places(indices)
    size = x.dtype.itemsize
    addresses = places[:, 0] * tensor.device.local_memory_bytes + places[:, 1]
    gathered = image[addresses[:, None] + np.arange(size)]
    assert np.array_equal(gathered, x.reshape(-1).view(np.uint8).reshape(-1, size))
    untouched = np.ones(image.size, bool)
    untouched[(addresses[:, None] + np.arange(size)).reshape(-1)] = False
    assert not image[untouched].any()  # everything else is fill
    assert np.array_equal(tessera.from_physical(image, tensor).view(np.uint8), x.view(np.uint8))


def test_row_major_array_straight_into_a_bm1684_tensor():
    tensor = tessera.npu.Tensor("bm1684", (4, 256, 56, 56), "f32")
    x = np.random.default_rng(3).random((4, 256, 56, 56), dtype=np.float32)
    image = tessera.to_physical(x, tensor)
    assert np.array_equal(tessera.from_physical(image, tensor), x)
    npu_index, offset = tensor.place((3, 200, 55, 1))
    start = npu_index * tensor.device.local_memory_bytes + offset
    assert image[start : start + 4].view(np.float32)[0] == x[3, 200, 55, 1]


def test_npu_image_gaps_take_the_fill_value():
    tensor = tessera.npu.Tensor("npus=4,lmem=1024,align=128", (2, 3, 4, 5), "f32", address=2048)
    x = np.zeros((2, 3, 4, 5), np.float32)
    image = tessera.to_physical(x, tensor, fill=1.5).view(np.float32)
    assert np.count_nonzero(image == 1.5) == image.size - x.size
    keep = np.full(tensor.size_bytes, 0xAB, np.uint8)
    tessera.to_physical(x, tensor, out=keep, keep_padding=True)
    assert np.count_nonzero(keep == 0xAB) == keep.size - x.nbytes
