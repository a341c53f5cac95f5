"""NumPy dtypes <-> XLA element type names (ml_dtypes supplies bfloat16, float8_*, int4, ...)."""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    import ml_dtypes
except ImportError:  # pragma: no cover - ml_dtypes is a declared dependency
    ml_dtypes = None

from ._tessera import UnsupportedError

# XLA name -> NumPy scalar type, for the types NumPy itself has.
_NUMPY_TYPES = {
    "pred": np.bool_,
    "s8": np.int8,
    "s16": np.int16,
    "s32": np.int32,
    "s64": np.int64,
    "u8": np.uint8,
    "u16": np.uint16,
    "u32": np.uint32,
    "u64": np.uint64,
    "f16": np.float16,
    "f32": np.float32,
    "f64": np.float64,
    "c64": np.complex64,
    "c128": np.complex128,
}
# XLA name -> ml_dtypes attribute; types missing from an older ml_dtypes are simply unavailable.
_ML_DTYPES_NAMES = {
    "bf16": "bfloat16",
    "s1": "int1",
    "u1": "uint1",
    "s2": "int2",
    "u2": "uint2",
    "s4": "int4",
    "u4": "uint4",
    "f4e2m1fn": "float4_e2m1fn",
    "f8e5m2": "float8_e5m2",
    "f8e4m3": "float8_e4m3",
    "f8e4m3fn": "float8_e4m3fn",
    "f8e4m3b11fnuz": "float8_e4m3b11fnuz",
    "f8e3m4": "float8_e3m4",
    "f8e5m2fnuz": "float8_e5m2fnuz",
    "f8e4m3fnuz": "float8_e4m3fnuz",
    "f8e8m0fnu": "float8_e8m0fnu",
}


def _build_tables() -> tuple[dict[str, np.dtype], dict[np.dtype, str]]:
    to_numpy = {name: np.dtype(t) for name, t in _NUMPY_TYPES.items()}
    if ml_dtypes is not None:
        for name, attribute in _ML_DTYPES_NAMES.items():
            if hasattr(ml_dtypes, attribute):
                to_numpy[name] = np.dtype(getattr(ml_dtypes, attribute))
    return to_numpy, {dtype: name for name, dtype in to_numpy.items()}


_TO_NUMPY, _TO_XLA = _build_tables()


def numpy_dtype(element_type: str) -> np.dtype:
    """The NumPy dtype holding one element of an XLA type: numpy_dtype("bf16") is
    ml_dtypes.bfloat16; sub-byte types (s4, pred) take one byte per element in NumPy."""
    try:
        return _TO_NUMPY[element_type]
    except KeyError:
        raise UnsupportedError(f"element type {element_type!r} has no NumPy dtype") from None


def xla_element_type(dtype: Any) -> str:
    """The XLA element type name of a NumPy dtype: xla_element_type(np.float32) == "f32",
    xla_element_type(ml_dtypes.int4) == "s4"."""
    try:
        return _TO_XLA[np.dtype(dtype)]
    except (KeyError, TypeError):
        raise UnsupportedError(f"NumPy dtype {dtype!r} has no XLA element type") from None
