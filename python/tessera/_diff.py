"""tessera.diff: two layouts of one array compared (the report of `tessera diff --json`)."""

from __future__ import annotations

import os
from typing import Any, Optional

from . import _tessera


def _layout_text(side: Any) -> str:
    """A side as the CLI takes it: text as is; a tessera.Layout as its notation; a JAX
    Layout/Format (or anything else) as its repr."""
    if isinstance(side, str):
        return side
    if isinstance(side, _tessera.Layout):
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
