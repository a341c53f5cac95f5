"""NPU local memory (npu_local_memory.md): devices, tensors, placements, footprints, best W.

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

from ._tessera.npu import Device, Matrix, Tensor, best_w, presets

__all__ = ["Device", "Matrix", "Tensor", "best_w", "presets"]
