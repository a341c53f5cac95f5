"""NumPy arrays into and out of any layout, through the C++ relayout engine.

The array side is NumPy's own buffer, whatever its strides: a C-contiguous array is a row-major
IndexMap, any other (Fortran order, transposes, slices with steps, reversed or broadcast views)
a StridedArray that the engine reads or writes in place. The data is read once and written once
(no intermediate C-order copy) with the GIL released.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from typing import Any, Callable, NamedTuple, Optional, Union

import numpy as np

from . import _tessera
from ._dtypes import numpy_dtype, xla_element_type
from ._explain import _with_targets
from ._tessera import ArgumentError, BufferSizeError, IndexMap, Layout, StridedArray

# Anything with an index map and an element type: Layout, npu.Tensor, or the text of a Layout.
LayoutLike = Union[Layout, str, Any]


class _Conversion(NamedTuple):
    """What to_physical/from_physical derive from a layout before touching data."""

    layout: Any  # kept alive: an identity-hashed key (npu.Tensor) must not be reused
    index_map: IndexMap
    plan: Any  # _tessera.Relayout; None in to_physical's entry per layout (plans are per strides)
    holes: bool
    widened: Optional[int]  # NumPy's elements zero-extended to this many bits first, or None


# Recently used plans. Building one is cheap (tens of microseconds), but the Python work around
# it runs just after a 64 MiB conversion has flushed every cache, where it costs ~0.2 ms: 5% of a
# conversion (the Python issue's target is 1.1x of the C++ engine). Plans are immutable and
# execute() is re-entrant, so threads may share them.
_PLAN_CACHE_SIZE = 16
_plan_cache: "OrderedDict[tuple, _Conversion]" = OrderedDict()
_plan_cache_lock = threading.Lock()


def _cached_conversion(key: tuple, build) -> _Conversion:
    with _plan_cache_lock:
        hit = _plan_cache.get(key)
        if hit is not None:
            _plan_cache.move_to_end(key)
            return hit
    conversion = build()
    with _plan_cache_lock:
        _plan_cache[key] = conversion
        while len(_plan_cache) > _PLAN_CACHE_SIZE:
            _plan_cache.popitem(last=False)
    return conversion


def _layout_key(layout: LayoutLike) -> tuple:
    """Layouts and their text key by value, other layout-likes (npu.Tensor) by identity; the type
    comes first so that objects of different types are never compared."""
    if isinstance(layout, (str, Layout)):
        return (type(layout), layout)
    return (type(layout), id(layout))


def _as_layout(layout: LayoutLike):
    if isinstance(layout, str):
        return Layout(layout)
    if not hasattr(layout, "index_map") or not hasattr(layout, "dtype"):
        raise TypeError(f"expected a tessera.Layout, its text, or an npu.Tensor; got {type(layout).__name__}")
    return layout


def _targeted(layout: LayoutLike, target: Optional[str]) -> LayoutLike:
    """`layout` with a target's tiles when `target` is given or TESSERA_TARGET names one and the
    layout names no tiles (the library decides: tessera/tpu/target_profile.h); as written
    otherwise. NPU tensors are never re-tiled."""
    if isinstance(layout, (str, Layout)):
        return _tessera._with_target(str(layout), target)
    return layout


def _row_major(dtype: str, dims: tuple[int, ...], element_bits: Optional[int] = None) -> Layout:
    """The layout of a C-contiguous NumPy array, optionally with elements widened to E(bits)."""
    rank = len(dims)
    order = ",".join(str(d) for d in reversed(range(rank)))
    element = f":E({element_bits})" if element_bits else ""
    return Layout(f"{dtype}[{','.join(str(d) for d in dims)}]{{{order}{element}}}")


def _bytes_view(array: np.ndarray) -> np.ndarray:
    """The bytes of a C-contiguous array as a 1-D uint8 view (no copy)."""
    return array.reshape(-1).view(np.uint8)


def _strided(array: np.ndarray, element_bits: int, destination: bool) -> tuple[StridedArray, np.ndarray]:
    """`array` as a StridedArray side of a plan and the uint8 view of its footprint (the bytes
    from the lowest it touches to the highest), both without copying. The library validates the
    strides (ArgumentError: a broadcast or overlapping destination, strides that are not whole
    elements) and says where the footprint starts relative to element 0."""
    strided = StridedArray(list(array.shape), element_bits, list(array.strides))
    first_element, size = strided.footprint(destination)
    element_0 = array[(slice(0, 1),) * array.ndim].reshape(1).view(np.uint8)
    # Row 1 of this two-row view starts first_element bytes before element 0: the lowest byte.
    rows = np.lib.stride_tricks.as_strided(
        element_0, shape=(2, size), strides=(-first_element, 1), writeable=destination
    )
    return strided, rows[1]


def _array_side(
    array: np.ndarray, element_type: str, widened: Optional[int], destination: bool
) -> tuple[Union[IndexMap, StridedArray], np.ndarray]:
    """The array's side of a plan and the bytes to hand to it, without copying: a row-major
    IndexMap and the buffer of a C-contiguous (or empty) array, a StridedArray and its footprint
    for any other. A source whose strides are not whole elements (possible with np.ndarray's
    strides=) cannot be addressed element by element and is copied into C order first; such a
    destination raises the library's ArgumentError."""
    if not array.flags.c_contiguous and array.size > 0:
        try:
            return _strided(array, 8 * array.dtype.itemsize, destination)
        except ArgumentError:
            if destination:
                raise
            array = np.ascontiguousarray(array)
    return _row_major(element_type, array.shape, widened).index_map, _bytes_view(np.ascontiguousarray(array))


def _side_key(side: Union[IndexMap, StridedArray]) -> tuple:
    """What the cached plan depends on besides the layout: C order, or the strides."""
    return ("strides", tuple(side.byte_strides)) if isinstance(side, StridedArray) else ("rows",)


def _unsigned(bits: int) -> np.dtype:
    return np.dtype(f"u{bits // 8}")


def _widened_bits(storage_bits: int, layout_bits: int) -> Optional[int]:
    """When the layout stores each element in more whole bytes than NumPy does (pred with E(32)),
    the array is widened first (zero-extended) and both sides then have the same element size."""
    if layout_bits > storage_bits and layout_bits % 8 == 0 and layout_bits in (16, 32, 64):
        return layout_bits
    return None


def _fill_text(fill: Any) -> str:
    """A Python fill value as the text the CLI's --fill takes: the library parses both, so both
    refuse the same values (300 for u8, 2.5 or NaN for s32, 1e39 for f32) in the same words.
    Floats print as their shortest round-trip decimal, so the library sees the exact double."""
    if isinstance(fill, str):
        return fill
    if isinstance(fill, (bool, np.bool_)):
        return "1" if fill else "0"
    if isinstance(fill, (int, np.integer)):
        return str(int(fill))
    if isinstance(fill, (complex, np.complexfloating)):
        value = complex(fill)
        return repr(value.real) if value.imag == 0 else str(fill)  # the library refuses "(1+2j)"
    if isinstance(fill, (float, np.floating)) or (isinstance(fill, np.generic) and hasattr(fill, "__float__")):
        return repr(float(fill))  # also ml_dtypes scalars (bfloat16, ...)
    return repr(fill)  # None, lists, ...: not a number, refused by the library


def _fill_bits(fill: Any, element_type: str) -> int:
    if type(fill) is int and fill == 0:  # the default, without a round trip through text
        return 0
    return _tessera.parse_fill_value(_fill_text(fill), element_type)


def _check_out(out: Optional[np.ndarray], nbytes: int, source: Optional[np.ndarray] = None) -> np.ndarray:
    if out is None:
        fresh = _tessera.empty_bytes(nbytes)
        if nbytes:  # the bits after the last sub-byte element are no element's: make them zero
            fresh[-1] = 0
        return fresh
    if not isinstance(out, np.ndarray) or not out.flags.c_contiguous:
        raise ArgumentError("out must be a C-contiguous NumPy array")
    if not out.flags.writeable:
        raise ArgumentError("out is read-only")
    view = _bytes_view(out)
    if view.size < nbytes:
        raise BufferSizeError(f"out holds {view.size} bytes, the layout needs {nbytes}")
    _refuse_overlap(view, source)
    return view


def _refuse_overlap(out: np.ndarray, source: Optional[np.ndarray]) -> None:
    """The engine reads and writes in parallel pieces: an out= sharing bytes with the input would
    read elements it has already overwritten."""
    if source is not None and np.may_share_memory(out, source):
        raise ArgumentError("out overlaps the input; give a separate output array")


def _has_holes(index_map: IndexMap) -> bool:
    """Whether some buffer offsets are no position of the digit form (NPU alignment gaps, the
    rest of the local memory image): the relayout engine fills only the padding positions of its
    boxes, so those offsets are filled here first. Layouts without a digit form count as holey."""
    if not index_map.has_digit_form:
        return True
    positions = 1
    for _, _, extent, _ in index_map.digits:
        positions *= extent
    return positions < index_map.size_elements


def _prefill(destination: np.ndarray, index_map: IndexMap, fill_bits: int) -> None:
    """Writes the fill element into every element slot of `destination` (one pass)."""
    bits = index_map.element_bits
    size = index_map.size_bytes
    if bits in (8, 16, 32, 64):
        destination[:size].view(_unsigned(bits)).fill(fill_bits)
    elif bits < 8 and 8 % bits == 0:
        pattern = 0
        for k in range(8 // bits):
            pattern |= (fill_bits & ((1 << bits) - 1)) << (k * bits)
        destination[:size].fill(pattern)
    else:  # c128: the fill's bits are the real part, the imaginary part is zero
        pairs = destination[:size].view(np.uint64).reshape(-1, 2)
        pairs[:, 0] = fill_bits
        pairs[:, 1] = 0


@_with_targets
def to_physical(
    array: Any,
    layout: LayoutLike,
    fill: Any = 0,
    *,
    out: Optional[np.ndarray] = None,
    threads: int = 0,
    keep_padding: bool = False,
    progress: Optional[Callable[[int, int], None]] = None,
    target: Optional[str] = None,
) -> np.ndarray:
    """The bytes of `array` laid out as `layout`: a 1-D uint8 array of layout.size_bytes.

    array: anything NumPy takes, whose shape is the layout's dims and whose dtype is the layout's
      element type. An ndarray in any memory order (Fortran order, transposes, slices with steps,
      reversed or broadcast views) is read in place, without a C-order copy (one exception:
      strides that are not a multiple of the element size, which are copied first). The dtype
      for each element type: np.float32 for f32, ml_dtypes.bfloat16 for bf16, ml_dtypes.int4 for s4, bool
      for pred, ...). Sub-byte layouts (E(4), E(1)) are packed low bits first, as XLA packs them.
    layout: a tessera.Layout, its text, or a tessera.npu.Tensor (then the result is the whole
      local memory image, X*S bytes, with the tensor's bytes in place).
    fill: the value written into every padding element: a number, bool or NaN that the element
      type holds exactly as the CLI's --fill reads it (300 for u8, 2.5 or NaN for s32, 1e39 for
      f32 raise ArgumentError), or the CLI's text ("0x7fc00000" for raw bits).
    out: an existing writable C-contiguous array of at least size_bytes bytes to write into, not
      sharing memory with `array` (ArgumentError otherwise).
    threads: worker threads, 0 for all cores. keep_padding: leave padding bytes of `out` as they
      are (with out=None they are then undefined).
    progress: optional callable(done_bytes, total_bytes), called every ~32 MiB of output and at
      the end (the same for from_physical and convert); an exception it raises stops the work.
    target: one of {targets}: tiles for a layout written without tiles. By
      default TESSERA_TARGET when set, else none: bytes move exactly as the layout is written.

    Example: to_physical(np.arange(15, dtype=np.float32).reshape(3, 5), "f32[3,5]{1,0:T(2,2)}")
    has 96 bytes; its float32 view is [0, 1, 5, 6, 2, 3, 7, 8, 4, 0, 9, 0, 10, 11, 0, 0, ...].
    """
    layout = _targeted(layout, target)
    source = np.asarray(array)  # no copy of an ndarray, whatever its strides
    element_type = xla_element_type(source.dtype)
    storage_bits = 8 * source.dtype.itemsize
    fill_bits = _fill_bits(fill, element_type)
    key = ("to", _layout_key(layout), source.dtype, source.shape, threads, fill_bits, keep_padding)

    def build() -> _Conversion:
        target = _as_layout(layout)
        if element_type != target.dtype:
            raise ArgumentError(
                f"the array's dtype {source.dtype} is {element_type}, the layout's element type is {target.dtype}"
            )
        index_map: IndexMap = target.index_map
        if tuple(source.shape) != tuple(index_map.dims):
            raise ArgumentError(
                f"the array's shape {tuple(source.shape)} is not the layout's dims {index_map.dims}"
            )
        widened = _widened_bits(storage_bits, index_map.element_bits)
        return _Conversion(layout, index_map, None, _has_holes(index_map), widened)

    conversion = _cached_conversion(key, build)
    index_map = conversion.index_map
    if conversion.widened:  # astype keeps the memory order (order="K"): still no C-order copy
        source = source.view(_unsigned(storage_bits)).astype(_unsigned(conversion.widened))
    side, source_bytes = _array_side(source, element_type, conversion.widened, destination=False)
    plan = _cached_conversion(
        (key, _side_key(side)),
        lambda: conversion._replace(
            plan=_tessera.Relayout(
                side, index_map, threads=threads, fill_bits=fill_bits, keep_padding=keep_padding
            )
        ),
    ).plan
    destination = _check_out(out, index_map.size_bytes, source)
    if not keep_padding and conversion.holes:
        _prefill(destination, index_map, fill_bits)
    plan.execute(source_bytes, destination, progress=progress)
    return destination if out is None else out


def from_physical(
    buffer: Any,
    layout: LayoutLike,
    *,
    out: Optional[np.ndarray] = None,
    threads: int = 0,
    progress: Optional[Callable[[int, int], None]] = None,
    target: Optional[str] = None,
    allow_larger: bool = False,
) -> np.ndarray:
    """The logical array stored in `buffer` (bytes in `layout`): an array of shape layout.dims and
    the NumPy dtype of the layout's element type. The inverse of to_physical.

    buffer: any bytes-like object or NumPy array (its raw bytes are used), exactly
      layout.size_bytes long (a buffer of another size usually means the wrong layout);
      BufferSizeError otherwise. allow_larger=True reads the first size_bytes of a longer one.
    out: an existing writable array of the right shape and dtype to write into, in any memory
      order (Fortran, a transposed, stepped or reversed view of a larger array: its elements
      are written in place and the bytes between them are left alone), not sharing memory with
      `buffer`; ArgumentError otherwise, and for a broadcast view (stride 0) or one whose
      elements overlap.

    target: as for to_physical.

    Example: from_physical(to_physical(x, layout), layout) == x for every layout and x.
    """
    layout = _as_layout(_targeted(layout, target))
    index_map: IndexMap = layout.index_map
    dtype = numpy_dtype(layout.dtype)
    raw = np.frombuffer(buffer, dtype=np.uint8) if not isinstance(buffer, np.ndarray) else buffer
    raw = _bytes_view(np.asarray(raw, order="C"))
    if raw.size < index_map.size_bytes or (raw.size > index_map.size_bytes and not allow_larger):
        raise BufferSizeError(
            f"the buffer holds {raw.size} bytes, the layout needs {index_map.size_bytes}"
            + ("" if raw.size < index_map.size_bytes else " (allow_larger=True reads the first ones)")
        )
    shape = tuple(index_map.dims)
    storage_bits = 8 * dtype.itemsize
    widened = _widened_bits(storage_bits, index_map.element_bits)
    if out is None:
        result = _tessera.empty_bytes(int(np.prod(shape, dtype=np.int64)) * (widened or storage_bits) // 8)
        side: Union[IndexMap, StridedArray] = _row_major(layout.dtype, shape, widened).index_map
    else:
        if not isinstance(out, np.ndarray) or out.shape != shape or out.dtype != dtype:
            raise ArgumentError(f"out must be a {dtype} array of shape {shape}")
        if not out.flags.writeable:
            raise ArgumentError("out is read-only")
        if widened:
            raise ArgumentError("out= is not supported for layouts wider than NumPy's storage")
        side, result = _array_side(out, layout.dtype, None, destination=True)
        _refuse_overlap(out, raw)
    plan = _cached_conversion(
        ("from", _layout_key(layout), threads, _side_key(side)),
        lambda: _Conversion(layout, index_map, _tessera.Relayout(index_map, side, threads=threads), False, widened),
    ).plan
    plan.execute(raw, result, progress=progress)
    if out is not None:
        return out
    if widened:
        return result.view(_unsigned(widened)).astype(_unsigned(storage_bits)).view(dtype).reshape(shape)
    return result.view(dtype).reshape(shape)


def convert(
    buffer: Any,
    source: LayoutLike,
    destination: LayoutLike,
    fill: Any = 0,
    *,
    out: Optional[np.ndarray] = None,
    threads: int = 0,
    progress: Optional[Callable[[int, int], None]] = None,
) -> np.ndarray:
    """The bytes of `buffer` (laid out as `source`) laid out as `destination`, without going
    through a logical array: one strided copy. The layouts must describe the same logical array.
    fill: the value (of the element type) written into the destination's padding."""
    source = _as_layout(source)
    destination = _as_layout(destination)
    raw = np.frombuffer(buffer, dtype=np.uint8) if not isinstance(buffer, np.ndarray) else buffer
    raw = _bytes_view(np.asarray(raw, order="C"))
    if source.dtype != destination.dtype:  # the plan sees only storage widths (and checks dims)
        raise ArgumentError(f"cannot convert {source.dtype} to {destination.dtype}: a conversion keeps the element type")
    fill_bits = _fill_bits(fill, destination.dtype)
    plan = _tessera.Relayout(source.index_map, destination.index_map, threads=threads, fill_bits=fill_bits)
    result = _check_out(out, destination.index_map.size_bytes, raw)
    if _has_holes(destination.index_map):
        _prefill(result, destination.index_map, fill_bits)
    plan.execute(raw, result, progress=progress)
    return result if out is None else out


def convert_file(
    input: Union[str, "os.PathLike[str]"],
    output: Union[str, "os.PathLike[str]"],
    source: Optional[LayoutLike] = None,
    destination: Optional[LayoutLike] = None,
    *,
    target: Optional[str] = None,
    fill: Any = None,
    keep_padding: bool = False,
    overwrite: bool = False,
    threads: int = 0,
    planner: str = "estimate",
    variant: Optional[str] = None,
    durable: bool = False,
    progress: Optional[Callable[[int, int], None]] = None,
) -> str:
    """The file `input` converted into `output`, exactly as `tessera convert --from SOURCE --to
    DESTINATION IN OUT` converts it (the same library code, the same errors): raw files hold a
    layout's physical bytes, .npy files the logical array (its layout may then be omitted).
    Layouts: a tessera.Layout or its text, or an NPU operand 'npu:DEVICE:N,C,H,W:DTYPE:ADDRESS'.
    target: tiles for a raw side's shape written without tiles (default TESSERA_TARGET, else the
    layouts as written). fill: the padding's value (1.5, -1, True, or raw bits '0x7fc00000').
    The output is written into a temporary file and renamed into place only on success; durable:
    return only once it is on disk. progress: optional callable(done_bytes, total_bytes).
    Returns the destination layout actually written (a target's tiles filled in): the text that
    reads `output` back as a raw file."""
    def text(layout: Optional[LayoutLike]) -> str:
        return "" if layout is None else str(layout)

    fill_text = "" if fill is None else ("true" if fill is True else "false" if fill is False else str(fill))
    return _tessera.convert_file(os.fspath(input), os.fspath(output), text(source), text(destination),
                                 target=target, fill=fill_text, keep_padding=keep_padding,
                                 overwrite=overwrite, threads=threads, planner=planner,
                                 variant=variant or "", durable=durable, progress=progress)
