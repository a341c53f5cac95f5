"""tessera: accelerator memory layouts made visible and usable from NumPy.

    >>> import numpy as np, tessera
    >>> layout = tessera.Layout.parse("f32[3,5]{1,0:T(2,2)}")
    >>> layout.linear_index((2, 3)), layout.size_bytes, layout.padding_fraction
    (17, 96, 0.375)
    >>> physical = tessera.to_physical(np.arange(15, dtype=np.float32).reshape(3, 5), layout)
    >>> physical.view(np.float32)[17]
    np.float32(13.0)
    >>> str(tessera.tpu_layout("bf16", (32, 256)))
    'bf16[32,256]{1,0:T(8,128)(2,1)}'

The work is done by the C++ library (the same one the `tessera` CLI uses): Layout and IndexMap
(XLA notation, index maps), to_physical / from_physical / convert / Relayout (the relayout
engine), convert_file (files, as `tessera convert`), tune / export_wisdom / import_wisdom (the engine's kernel choices measured on this host),
explain / tpu_layout and Layout.to_svg (reports and pictures), diff (two layouts of one array
compared), layout_mismatches (layout errors decoded), tessera.npu (NPU local memory). Errors are
tessera.Error subclasses, themselves ValueErrors, with the CLI's messages.
"""

from __future__ import annotations

from . import npu
from ._conversion import convert, convert_file, from_physical, to_physical
from ._dtypes import numpy_dtype, xla_element_type
from ._explain import diff, explain, explain_input, tpu_layout
from ._tessera import (
    ArgumentError,
    BufferSizeError,
    DoesNotFitError,
    Error,
    IndexMap,
    InvalidLayoutError,
    IoError,
    Layout,
    NotationError,
    OutOfRangeError,
    Relayout,
    SizeOverflowError,
    StridedArray,
    UnsupportedError,
    __version__,  # TESSERA_VERSION, compiled into the extension from CMakeLists.txt
    default_wisdom_path,
    empty_bytes,
    export_wisdom,
    host_description,
    import_wisdom,
    kernel_classes,
    layout_mismatches,
    release_buffers,
    save_wisdom,
    tune,
    use_wisdom_file,
    variant_names,
)

__all__ = [
    "ArgumentError",
    "release_buffers",
    "BufferSizeError",
    "DoesNotFitError",
    "Error",
    "IndexMap",
    "InvalidLayoutError",
    "IoError",
    "Layout",
    "NotationError",
    "OutOfRangeError",
    "Relayout",
    "SizeOverflowError",
    "StridedArray",
    "UnsupportedError",
    "convert",
    "convert_file",
    "default_wisdom_path",
    "diff",
    "empty_bytes",
    "export_wisdom",
    "explain",
    "explain_input",
    "from_physical",
    "host_description",
    "import_wisdom",
    "kernel_classes",
    "layout_mismatches",
    "npu",
    "numpy_dtype",
    "save_wisdom",
    "to_physical",
    "tpu_layout",
    "tune",
    "use_wisdom_file",
    "variant_names",
    "xla_element_type",
]

# Tracebacks say tessera.InvalidLayoutError, not tessera._tessera.InvalidLayoutError.
for _error in (Error, ArgumentError, BufferSizeError, DoesNotFitError, InvalidLayoutError, IoError, NotationError,
               OutOfRangeError, SizeOverflowError, UnsupportedError):
    _error.__module__ = "tessera"
del _error
