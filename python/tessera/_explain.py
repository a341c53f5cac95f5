"""The explain library from Python: reports and the TPU target profile."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from . import _tessera
from ._dtypes import xla_element_type
from ._tessera import Layout

explain = _tessera.explain


def tpu_layout(
    dtype: Any,
    shape: Sequence[int],
    minor_to_major: Optional[Sequence[int]] = None,
    *,
    pred_one_bit: bool = False,
) -> Layout:
    """The layout a TPU gives an array (the target profile of tiled_layout.md, "Examples of
    tiling formats"; README: "Target profiles"): 32-bit -> T(8,128), or (2,128)/(4,128) when the
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
