"""tessera: accelerator memory layouts made visible and usable from NumPy.

    >>> import tessera
    >>> layout = tessera.Layout.parse("f32[3,5]{1,0:T(2,2)}")
    >>> layout.linear_index((2, 3)), layout.size_bytes, layout.padding_fraction
    (17, 96, 0.375)

The heavy lifting is the C++ library (the same one the `tessera` CLI uses); errors are
`tessera.Error` subclasses, themselves `ValueError`s, carrying the CLI's messages.
"""

from __future__ import annotations

from . import npu
from ._dtypes import numpy_dtype, xla_element_type
from ._tessera import (
    BufferSizeError,
    DoesNotFitError,
    Error,
    IndexMap,
    InvalidLayoutError,
    IoError,
    Layout,
    NotationError,
    OutOfRangeError,
    SizeOverflowError,
    UnsupportedError,
)

__all__ = [
    "BufferSizeError",
    "DoesNotFitError",
    "Error",
    "IndexMap",
    "InvalidLayoutError",
    "IoError",
    "Layout",
    "NotationError",
    "OutOfRangeError",
    "SizeOverflowError",
    "UnsupportedError",
    "npu",
    "numpy_dtype",
    "xla_element_type",
]
__version__ = "0.1.0"
