"""The explain library from Python: reports, diffs of two layouts and the TPU target profile."""

from __future__ import annotations

import os
from typing import Any, Optional, Sequence

from . import _tessera
from ._dtypes import xla_element_type
from ._tessera import Layout

explain_input = _tessera.explain_input


def _jax_repr(layout: Any) -> str:
    """The repr of a JAX Layout/Format (or the repr text itself)."""
    return layout if isinstance(layout, str) else repr(layout)


def _shape_text(dtype: Any, shape: Sequence[int]) -> str:
    name = dtype if isinstance(dtype, str) else xla_element_type(dtype)
    return f"{name}[{','.join(str(int(d)) for d in shape)}]"


def _from_jax(layout: Any, shape: Sequence[int], dtype: Any) -> Layout:
    """Layout.from_jax(layout_or_format_or_repr, shape, dtype): a JAX Layout, Format (x.format)
    or their repr in XLA's notation. JAX's major_to_minor is XLA's minor_to_major reversed:
    Layout(major_to_minor=(0, 1), tiling=((8, 128),)) of f32[8,256] is f32[8,256]{1,0:T(8,128)}."""
    return Layout.parse(_tessera._jax_layout_shape(_shape_text(dtype, shape), _jax_repr(layout)))


def _to_jax(self: Layout) -> Any:
    """This layout as a jax.experimental.layout.Layout when jax is importable, else as the repr
    JAX prints (major_to_minor is minor_to_major reversed)."""
    major_to_minor, tiling, bits, text = _tessera._jax_layout_fields(self)
    try:
        from jax.experimental.layout import Layout as JaxLayout
    except ImportError:
        return text
    return JaxLayout(major_to_minor=tuple(major_to_minor),
                     tiling=tuple(tuple(t) for t in tiling),
                     sub_byte_element_size_in_bits=bits)


Layout.from_jax = staticmethod(_from_jax)
Layout.to_jax = _to_jax


def _with_targets(function):
    """Writes the generation table's target names (one list, in the C++ library) where the
    docstring says {targets}."""
    function.__doc__ = function.__doc__.replace("{targets}", _tessera._target_names)
    return function


@_with_targets
def explain(
    shape: Any,
    *,
    target: Optional[str] = None,
    pred_one_bit: bool = False,
    pred_bits: int = 0,
    max_suggestions: int = 10,
    shards: Optional[Sequence[int]] = None,
    xla_era: Optional[str] = None,
) -> dict:
    """The report of `tessera explain --json`: of a shape's text, a Layout, or a JAX array (its
    x.format layout when it has one): suggestions (other layouts; equivalent ones grouped under
    `alternatives`) and fixes (JAX code to paste: `reshape`, `reorder` (jnp.transpose) and
    `storage` (jnp.packbits), each sized as the compiler lays out the array it makes; `reshape`
    and `pad` in era 2020). shards: shards per
    dimension; the per-device shard is explained (uneven shards padded up, as XLA does) and the
    fixes say what to change per shard. target: one of {targets};
    None means TESSERA_TARGET when set, else tpu for a shape written without tiles (as
    `tessera explain`). pred_bits: 32, 8 or 1 (0: the target's own pred storage). xla_era:
    '2026' (today's compiler, the default; it also orders the dims of a shape written without a
    layout, as it does a device array's) or '2020' (the public 2019-2021 reports); None means
    TESSERA_XLA_ERA when set."""
    if isinstance(shape, Layout):
        text = str(shape)
    elif isinstance(shape, str):
        text = shape
    else:  # an array: jax.Array (x.format), NumPy
        text = _shape_text(shape.dtype, shape.shape)
        fmt = getattr(shape, "format", None)
        layout = getattr(fmt, "layout", None) if fmt is not None else None
        if layout is not None and "major_to_minor" in repr(layout):
            text = _tessera._jax_layout_shape(text, repr(layout))
    return _tessera.explain(text, target=target, pred_one_bit=pred_one_bit, pred_bits=pred_bits,
                            max_suggestions=max_suggestions,
                            shards=[int(s) for s in shards] if shards is not None else [],
                            xla_era=xla_era)


@_with_targets
def tpu_layout(
    dtype: Any,
    shape: Sequence[int],
    target: Optional[str] = None,
    *,
    minor_to_major: Optional[Sequence[int]] = None,
    pred_bits: int = 0,
    pred_one_bit: bool = False,
    xla_era: Optional[str] = None,
) -> Layout:
    """The layout a TPU stores a device array in: with the default xla_era ('2026'), what
    libtpu gives jax.device_put(x) on `target` -- equal to
    jax.jit(f).lower(...).compile().input_formats' layout (docs/reference/tpu-targets.md;
    tests/python/test_tpu_compiler_live.py checks it against the real compiler). The compiler
    chooses the dimension order: f32[1024,3] is stored {0,1:T(4,128)}, not row-major.

    dtype: an XLA type name ("bf16") or a NumPy dtype (np.float32, ml_dtypes.bfloat16).
    target: one of {targets} ('tpu' is tpu-v5e); None means TESSERA_TARGET, else
      'tpu'.
    minor_to_major: a dimension order to keep instead of the compiler's (an array whose layout
      the program fixes); the tiles are then those of that order.
    pred_bits: 32, 8 or 1 (0: the generation's own pred storage); pred_one_bit is pred_bits=1.
    xla_era: '2020' reproduces the public 2019-2021 reports (row-major, pred as E(32)).

    Example: str(tpu_layout("f32", (1024, 3), "tpu-v5e")) == "f32[1024,3]{0,1:T(4,128)}".
    """
    if target is not None and not isinstance(target, str):
        # The third argument was minor_to_major before targets were generations.
        minor_to_major, target = target, None
    name = dtype if isinstance(dtype, str) else xla_element_type(dtype)
    dims = ",".join(str(int(d)) for d in shape)
    text = f"{name}[{dims}]"
    if minor_to_major is not None:
        text += "{" + ",".join(str(int(d)) for d in minor_to_major) + "}"
    return _tessera._tpu_layout(text, target, 1 if pred_one_bit else pred_bits, xla_era)


def _layout_text(side: Any) -> str:
    """A side as the CLI takes it: text as is; a tessera.Layout as its notation; a JAX
    Layout/Format (or anything else) as its repr."""
    if isinstance(side, str):
        return side
    if isinstance(side, Layout):
        return str(side)
    return repr(side)


def diff(
    a: Any,
    b: Any,
    *,
    shape: Optional[str] = None,
    target: Optional[str] = None,
    pred_bits: int = 0,
    xla_era: Optional[str] = None,
    measure: bool = False,
    threads: int = 0,
    picture: Optional[os.PathLike | str] = None,
    window: str = "",
    max_cells: int = 4096,
) -> dict:
    """Two layouts of one array compared, as `tessera diff A B --json`: a dict with
    `elements`, `moved_elements` and `stayed_elements` (an element moves when its byte offset --
    its bit offset for elements narrower than a byte -- differs between a and b, counted
    exactly), `a` and `b` ({layout, size_bytes, data_bytes, padding_bytes, ...}),
    `differences`, `tiles` (a summary by tile), `plan` (the relayout's kernels) and `cost`
    (bytes read and written, seconds: an estimate unless measure=True runs the plan here).

    a, b: XLA notation ('f32[4,256]{1,0:T(8,128)}'), an NPU operand ('npu:bm1684:1,8,2,4:f32:0'),
    a tessera.Layout, or a JAX Layout/Format (or its repr), which takes the array from the other
    side or from `shape`. target: tiles for a side written without tiles ('tpu', 'tpu-v5e', ...;
    default TESSERA_TARGET, else none), as `tessera diff --target`; xla_era: as --xla-era.
    picture: also write the diff picture (.svg or .html)."""
    path = None if picture is None else os.fspath(picture)
    return _tessera._diff(_layout_text(a), _layout_text(b), target, pred_bits, xla_era,
                          shape or "", measure, threads, path, window, max_cells)
