"""NPU local memory (docs/design/npu-local-memory.md): devices, tensors, placements, footprints, best W.

    >>> from tessera import npu
    >>> device = npu.Device("npus=4,lmem=1024,align=128")   # or npu.Device("bm1684")
    >>> device.locate(1472)
    (1, 448, 0)
    >>> t = npu.Tensor(device, (2, 3, 4, 5), "f32", address=2048, layout="aligned")
    >>> t.place((1, 2, 0, 0)), t.strides
    ((0, 384), (64, 32, 5, 1))
    >>> npu.best_w(device, 2, 40, "f32")
    10

A Tensor is also a layout for tessera.to_physical / from_physical: its physical form is the
whole local memory image (X*S bytes) with the tensor's elements in place.
"""

import json
import os
from typing import Any, Union

from ._tessera.npu import (Device, Matrix, Tensor, _check_plan, _check_tpu_mlir_plan, _draw_plan,
                           _draw_tpu_mlir_plan, _is_tpu_mlir_plan_file, _read_plan_file, best_w,
                           presets)

__all__ = ["Device", "Matrix", "Plan", "Tensor", "best_w", "presets"]


class Plan:
    """Several tensors sharing local memory, checked exactly to the byte.

    The plan is a dict, JSON text, or the path of a JSON file, as `tessera npu plan FILE` reads::

        >>> plan = npu.Plan({"device": "npus=4,lmem=1024,align=128,banks=4", "tensors": [
        ...     {"name": "in", "shape": [1, 6, 1, 8], "dtype": "f32", "address": 0},
        ...     {"name": "out", "shape": [1, 6, 2, 8], "dtype": "f32", "address": "auto"}]})
        >>> plan.tensors[1]["address"], plan.overlaps
        (256, [])

    check() returns the dict of `tessera npu plan --json` (keys summary, plan, tensors,
    overlaps, empty_block_reuse, bank_conflicts, npus); the properties are its parts. Overlaps
    are one entry per tensor pair; max_overlaps bounds the entries listed per kind, as
    `--max-overlaps` does (the counts in summary are whole). Bad plans raise the same tessera
    errors, with the same words, as the CLI; a path is read by the CLI's own reader.

    A path to tpu-mlir's `MODEL_final.mlir` (`model_deploy.py --debug`) is read as `tessera npu
    plan` reads it: check() is then that report (keys summary, chip, device, groups), groups its
    layer groups, and tensors, overlaps and bank_conflicts gather those of every group.
    """

    def __init__(self, plan: Union[dict, str, "os.PathLike[str]"], max_overlaps: int = 100):
        self._tpu_mlir = None
        if isinstance(plan, (str, os.PathLike)) and not os.fspath(plan).lstrip().startswith("{") \
                and _is_tpu_mlir_plan_file(os.fspath(plan)):
            self._tpu_mlir = os.fspath(plan)
            self._report = _check_tpu_mlir_plan(self._tpu_mlir, max_overlaps)
            return
        if isinstance(plan, dict):
            self._text = json.dumps(plan)
        elif isinstance(plan, os.PathLike) or (isinstance(plan, str) and not plan.lstrip().startswith("{")):
            self._text = _read_plan_file(os.fspath(plan))
        elif isinstance(plan, str):
            self._text = plan
        else:
            raise TypeError(f"a plan is a dict, JSON text or a file path, not {type(plan).__name__}")
        self._report = _check_plan(self._text, max_overlaps)

    def check(self) -> dict[str, Any]:
        return self._report

    @property
    def clean(self) -> bool:
        """No overlap, bank conflict, or tensor not placed or past local memory: what `tessera
        npu plan --check` exits 0 for (empty-block reuse is allowed, with a warning)."""
        return self._report["summary"]["clean"]

    @property
    def placed(self) -> dict[str, Any]:
        """The plan with auto addresses filled in, ready to save and pass back."""
        return self._report["plan"]

    def _gathered(self, key: str) -> list:
        if self._tpu_mlir is not None:
            return [item for group in self._report["groups"] for item in group[key]]
        return self._report[key]

    @property
    def groups(self) -> list:
        """tpu-mlir's layer groups (an empty list for a JSON plan)."""
        return self._report.get("groups", []) if self._tpu_mlir is not None else []

    @property
    def tensors(self) -> list:
        return self._gathered("tensors")

    @property
    def overlaps(self) -> list:
        return self._gathered("overlaps")

    @property
    def empty_block_reuse(self) -> list:
        return self._report["empty_block_reuse"]

    @property
    def bank_conflicts(self) -> list:
        return self._gathered("bank_conflicts")

    @property
    def npus(self) -> list:
        return self._report["npus"]

    def draw(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Writes the picture of `tessera npu plan -o`: .svg or .html by the extension."""
        if self._tpu_mlir is not None:
            _draw_tpu_mlir_plan(self._tpu_mlir, os.fspath(path))
        else:
            _draw_plan(self._text, os.fspath(path))
