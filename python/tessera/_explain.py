"""The explain library from Python: reports and the TPU target profile."""

from __future__ import annotations

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


def explain(
    shape: Any,
    *,
    target: Optional[str] = None,
    pred_one_bit: bool = False,
    pred_bits: int = 0,
    max_suggestions: int = 10,
    shards: Optional[Sequence[int]] = None,
) -> dict:
    """The report of `tessera explain --json`: of a shape's text, a Layout, or a JAX array (its
    x.format layout when it has one): suggestions (other layouts; equivalent ones grouped under
    `alternatives`) and fixes (`reshape` and `pad` changes to the program). shards: shards per
    dimension; the per-device shard is explained (uneven shards padded up, as XLA does) and the
    fixes say what to change per shard. target: 'tpu', 'tpu-v2'..'tpu-v7x' or
    'none'; None means TESSERA_TARGET when set, else tpu for a shape written without tiles (as
    `tessera explain`). pred_bits: 32, 8 or 1 (0: the target's own pred storage)."""
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
                            shards=[int(s) for s in shards] if shards is not None else [])


def tpu_layout(
    dtype: Any,
    shape: Sequence[int],
    minor_to_major: Optional[Sequence[int]] = None,
    *,
    pred_one_bit: bool = False,
) -> Layout:
    """The layout a TPU gives an array (the target profile: docs/design/tiled-layouts.md,
    "Formats in use"; docs/reference/tpu-targets.md): 32-bit -> T(8,128), or (2,128)/(4,128) when the
    second most minor dimension is 1-2/3-4; 16-bit -> (8,128)(2,1); 8-bit -> (8,128)(4,1);
    pred -> T(8,128)E(32), or (32,128)(32,1)E(1) with pred_one_bit.

    dtype: an XLA type name ("bf16") or a NumPy dtype (np.float32, ml_dtypes.bfloat16).
    minor_to_major: the dimension order, row-major ({rank-1,...,0}) by default.

    Example: str(tpu_layout("bf16", (32, 256))) == "bf16[32,256]{1,0:T(8,128)(2,1)}".
    """
    name = dtype if isinstance(dtype, str) else xla_element_type(dtype)
    dims = ",".join(str(int(d)) for d in shape)
    order = minor_to_major if minor_to_major is not None else range(len(shape) - 1, -1, -1)
    text = f"{name}[{dims}]{{{','.join(str(int(d)) for d in order)}}}"
    return _tessera._tpu_layout(text, pred_one_bit)
