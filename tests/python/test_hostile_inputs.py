"""What the CLI refuses, Python refuses too (fill values through the library's one
parser), buffers of the wrong size, overlapping or read-only outputs, exception classes that say
what was wrong, and notebook output that stays small and scoped."""

import math

import numpy as np
import pytest

import tessera

ml_dtypes = pytest.importorskip("ml_dtypes")


@pytest.mark.parametrize(
    "dtype, text, fill, why",
    [
        (np.uint8, "u8[4]{0:T(8)}", 300, "out of range [0, 255]"),
        (np.uint8, "u8[4]{0:T(8)}", -1, "out of range [0, 255]"),
        (np.int32, "s32[4]{0:T(8)}", math.nan, "not an integer"),
        (np.int32, "s32[4]{0:T(8)}", 2.5, "not an integer"),
        (np.float32, "f32[4]{0:T(8)}", 1e39, "out of range (beyond the largest finite value)"),
        (np.bool_, "pred[4]{0:T(8)}", 2, "use true, false, 1 or 0"),
        (ml_dtypes.int4, "s4[4]{0:T(8)E(4)}", 8, "out of range [-8, 7]"),
        (np.float32, "f32[4]{0:T(8)}", None, "not a number"),
        (np.int64, "s64[4]{0:T(8)}", 2**63, "out of range [-9223372036854775808, 9223372036854775807]"),
    ],
)
def test_fill_values_the_type_cannot_hold_are_refused(dtype, text, fill, why):
    """Regression: fill=300 for u8 wrote 44, NaN into s32 INT_MIN, None NaN, 8 into s4 -8."""
    with pytest.raises(tessera.ArgumentError) as caught:
        tessera.to_physical(np.zeros(4, dtype), text, fill=fill)
    assert str(caught.value).endswith(why)
    with pytest.raises(tessera.ArgumentError):
        tessera.convert(np.zeros(tessera.Layout(text).size_bytes, np.uint8), text, text, fill=fill)


@pytest.mark.parametrize(
    "dtype, text, fill, bits",
    [
        (np.float16, "f16[1]{0:T(2)}", 1.000488281250001, 0x3C01),  # NumPy's rounding, not float's
        (np.float16, "f16[1]{0:T(2)}", np.float16(-2.5), 0xC100),
        (np.int32, "s32[1]{0:T(2)}", 2.0, 2),
        (np.int32, "s32[1]{0:T(2)}", True, 1),
        (np.uint64, "u64[1]{0:T(2)}", 2**64 - 1, 2**64 - 1),
        (np.float32, "f32[1]{0:T(2)}", "0x7fc00000", 0x7FC00000),
        (np.float32, "f32[1]{0:T(2)}", math.nan, 0x7FC00000),
        (np.complex64, "c64[1]{0:T(2)}", 1.5 + 0j, 0x3FC00000),
    ],
)
def test_fill_values_are_written_like_numpy(dtype, text, fill, bits):
    physical = tessera.to_physical(np.zeros(1, dtype), text, fill=fill)
    item = np.dtype(dtype).itemsize
    padding = physical[item : 2 * item].view(f"<u{min(item, 8)}")[0]
    assert int(padding) == bits
    if isinstance(fill, float) and not math.isnan(fill):
        assert int(np.array([fill], dtype).view(f"<u{item}")[0]) == bits


def test_from_physical_needs_the_exact_size_unless_allowed():
    layout = tessera.Layout("f32[3,5]{1,0:T(2,2)}")
    physical = tessera.to_physical(np.arange(15, dtype=np.float32).reshape(3, 5), layout)
    longer = np.concatenate([physical, np.zeros(4, np.uint8)])
    with pytest.raises(tessera.BufferSizeError, match="holds 100 bytes, the layout needs 96"):
        tessera.from_physical(longer, layout)
    back = tessera.from_physical(longer, layout, allow_larger=True)
    assert np.array_equal(back, np.arange(15, dtype=np.float32).reshape(3, 5))


def test_out_overlapping_the_input_is_refused():
    buffer = np.zeros(256, np.uint8)
    source = buffer[:96]
    with pytest.raises(tessera.ArgumentError, match="overlaps"):
        tessera.convert(source, "f32[3,5]{1,0:T(2,2)}", "f32[3,5]{0,1:T(2,2)}", out=buffer[64:])
    x = np.zeros(64, np.uint8)
    with pytest.raises(tessera.ArgumentError, match="overlaps"):
        tessera.to_physical(x.view(np.float32), "f32[16]{0:T(8)}", out=x)
    with pytest.raises(tessera.ArgumentError, match="overlaps"):
        tessera.from_physical(x, "f32[16]{0:T(8)}", out=x.view(np.float32))


def test_exception_classes_say_what_was_wrong():
    layout = "f32[3,5]{1,0:T(2,2)}"
    with pytest.raises(tessera.ArgumentError, match="dtype") as caught:
        tessera.to_physical(np.zeros((3, 5), np.float64), layout)
    assert not isinstance(caught.value, tessera.InvalidLayoutError)
    read_only = np.zeros(96, np.uint8)
    read_only.flags.writeable = False
    with pytest.raises(tessera.ArgumentError, match="read-only") as caught:
        tessera.to_physical(np.zeros((3, 5), np.float32), layout, out=read_only)
    assert not isinstance(caught.value, tessera.BufferSizeError)
    assert issubclass(tessera.ArgumentError, tessera.Error)
    assert tessera.ArgumentError.__module__ == "tessera"


def test_index_arrays_of_floats_raise_a_tessera_error():
    """Regression: float index arrays raised RuntimeError('std::bad_cast')."""
    layout = tessera.Layout("f32[3,5]{1,0:T(2,2)}")
    with pytest.raises(tessera.ArgumentError, match="must be integers, not dtype float64"):
        layout.linear_indices(np.array([[1.5, 2.0]]))
    with pytest.raises(tessera.ArgumentError, match="float64"):
        layout.logical_indices(np.array([1.5]))


def test_uint64_indices_above_int64_are_not_shown_negative():
    layout = tessera.Layout("f32[3,5]{1,0:T(2,2)}")
    with pytest.raises(tessera.OutOfRangeError, match="9223372036854775808") as caught:
        layout.linear_indices(np.array([[2**63, 0]], np.uint64))
    assert "-9223372036854775808" not in str(caught.value)
    with pytest.raises(tessera.OutOfRangeError, match="9223372036854775808"):
        layout.logical_indices(np.array([2**63], np.uint64))


def test_rank_limit_is_reached_quickly_from_python():
    """Regression: 500k dims took 146 s; parsing stops at the documented rank limit."""
    with pytest.raises(tessera.UnsupportedError, match="rank limit is 1024"):
        tessera.Layout("f32[" + ",".join(["1"] * 500_000) + "]")


def test_notebook_output_is_small_and_scoped():
    """Regression: bf16[4096,4096] gave 3 MB of HTML (and 3 MB of SVG) with a global body{}
    style and a fixed id="info", so two outputs on one page cross-highlighted."""
    layout = tessera.Layout("bf16[4096,4096]{1,0:T(8,128)(2,1)}")
    first, second = layout._repr_html_(), layout._repr_html_()
    assert len(first.encode()) <= 300 * 1024 and len(layout._repr_svg_().encode()) <= 300 * 1024
    assert "body" not in first and 'id="info"' not in first and "<html" not in first
    ids = [html.split('id="', 1)[1].split('"', 1)[0] for html in (first, second)]
    assert ids[0] != ids[1] and f"#{ids[0]} .selected rect" in first
    assert 'layout.save("x.html")' in first  # the whole picture is one call away
