"""tessera.npu through Python: the spec's numbers, random tensors against an independent model of
the spec's placement formulas, vectorised places, errors."""

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import tessera
from tessera import npu

SPEC_DEVICE = "npus=4,lmem=1024,align=128"


def test_address_of_tensor_in_local_memory_four_addresses():
    device = npu.Device(SPEC_DEVICE)
    assert [device.locate(a)[:2] for a in (340, 1472, 2300, 3088)] == [(0, 340), (1, 448), (2, 252), (3, 16)]


def test_presets():
    bm1684 = npu.Device("bm1684")
    assert (bm1684.npus, bm1684.local_memory_bytes, bm1684.alignment_bytes) == (64, 512 * 1024, 128)
    assert [d.name for d in npu.presets()] == ["bm1684", "bm1684x", "bm1684x2", "bm1688", "bm1690", "bm1690e",
                                              "sg2380", "cv184x", "sgtpuv8"]
    assert npu.Device("BM1684") == bm1684 and npu.Device.custom(4, 1024, 128) == npu.Device(SPEC_DEVICE)


def test_128_byte_aligned_layout_at_npu_2():
    t = npu.Tensor(SPEC_DEVICE, (2, 3, 4, 5), "f32", address=2048, layout="aligned")
    assert t.strides == (64, 32, 5, 1) and t.channels_per_npu == 2
    assert t.place((1, 2, 0, 0)) == (0, 384)


def test_matrix_layout_best_w():
    assert npu.best_w(SPEC_DEVICE, 2, 40, "f32") == 10
    m = npu.Matrix(SPEC_DEVICE, 2, 40, "f32")
    assert (m.w, m.channels) == (10, 4) and m.info()["best_w"] == 10
    m15 = npu.Matrix(SPEC_DEVICE, 2, 40, "f32", w=15)
    assert m15.place(1, 31) == (2, 132) and m15.last_channel_columns == 10
    assert "best_w" not in m15.info()
    assert m15.places([[1, 31], [0, 0]]).tolist() == [[2, 132], [0, 0]]


def test_storage_mode_4n():
    t = npu.Tensor(SPEC_DEVICE, (6, 5, 4, 5), "s8", layout="compact", mode="4N")
    assert t.stored_shape == (2, 5, 4, 5) and t.stored_element_bytes == 4
    npu_index, offset = t.place((5, 0, 0, 0))
    assert offset % 4 == 1  # byte n mod 4 of its 32-bit word


@st.composite
def tensors(draw):
    npus = draw(st.sampled_from([1, 2, 3, 4, 8]))
    align = draw(st.sampled_from([4, 16, 64, 128]))
    lmem = draw(st.sampled_from([1024, 4096, 16384]))
    dtype, size = draw(st.sampled_from([("f32", 4), ("s8", 1), ("f16", 2), ("u16", 2), ("s32", 4)]))
    shape = tuple(draw(st.integers(1, 5)) for _ in range(4))
    layout = draw(st.sampled_from(["aligned", "compact"]))
    step = align if layout == "aligned" else 4
    address = draw(st.integers(0, npus * lmem // step - 1)) * step
    return f"npus={npus},lmem={lmem},align={align}", npus, lmem, align, dtype, size, shape, layout, address


def model_place(npus, lmem, align, size, shape, layout, address, index):
    """The spec's formulas, written out independently: start NPU Q and offset R, channels per NPU
    ceil((Q+C)/X), C stride (aligned: H*W bytes rounded up to the alignment), N stride = C stride x
    channels per NPU, channel c on NPU (Q+c) mod X in row (Q+c) div X."""
    n, c, h, w = index
    _, channels, height, width = shape
    q, r = divmod(address, lmem)
    rows = -(-(q + channels) // npus)
    if layout == "aligned":
        c_stride = -(-(height * width * size) // align) * align // size
    else:
        c_stride = height * width
    n_stride = c_stride * rows
    row, npu_index = divmod(q + c, npus)
    return npu_index, r + (n * n_stride + row * c_stride + h * width + w) * size


@given(tensors())
def test_random_tensors_match_the_spec_formulas(case):
    device, npus, lmem, align, dtype, size, shape, layout, address = case
    try:
        t = npu.Tensor(device, shape, dtype, address=address, layout=layout)
    except tessera.DoesNotFitError:
        assume(False)
    assume(t.fits)
    indices = np.indices(shape).reshape(4, -1).T
    places = t.places(indices)
    expected = [model_place(npus, lmem, align, size, shape, layout, address, i) for i in indices.tolist()]
    assert places.tolist() == [list(p) for p in expected]
    assert sum(t.bytes_per_npu) >= int(np.prod(shape)) * size
    assert t.info()["bytes_per_npu"] == t.bytes_per_npu


def test_npu_errors_are_value_errors_with_the_cli_messages():
    with pytest.raises(tessera.Error, match="unknown device"):
        npu.Device("bm9999")
    with pytest.raises(tessera.OutOfRangeError):
        npu.Device(SPEC_DEVICE).locate(4096)
    with pytest.raises(tessera.InvalidLayoutError, match="4N"):
        npu.Tensor(SPEC_DEVICE, (4, 4, 4, 4), "f32", mode="4N")
    with pytest.raises(tessera.InvalidLayoutError):
        npu.Tensor(SPEC_DEVICE, (4, 0, 4, 4), "f32")
    with pytest.raises(tessera.InvalidLayoutError):
        npu.Tensor(SPEC_DEVICE, (1, 1, 1, 1), "f32", address=4)  # aligned needs 128
    with pytest.raises(tessera.OutOfRangeError):
        npu.Tensor(SPEC_DEVICE, (1, 1, 2, 2), "f32").place((0, 0, 2, 0))
    with pytest.raises(tessera.InvalidLayoutError):
        npu.Matrix(SPEC_DEVICE, 2, 40, "f32", w=41)
    with pytest.raises(tessera.Error, match="shape"):
        npu.Tensor(SPEC_DEVICE, (1, 1, 2, 2), "f32").places([[0, 0, 0]])
    too_big = npu.Tensor(SPEC_DEVICE, (1, 4, 32, 32), "f32")
    assert not too_big.fits and too_big.overrun_bytes > 0
    with pytest.raises(tessera.DoesNotFitError):
        too_big.index_map
