"""Ask Sophgo's own C models of its NPU chips where a copy puts every element of a tensor.

tessera's NPU answers come from the chips written as data (tessera/npu/chip.h). This module is
the certainty behind them: the vendor's C models of every chip of the family, shipped in PyPI's
tpu-mlir wheel, run on any x86-64 Linux without the chip:

    pip download --no-deps --python-version 3.10 --only-binary=:all: tpu-mlir==1.30.2

(311 MB; ``bash tools/npu_oracle/regenerate.sh`` fetches it into the cache this module looks in,
``$XDG_CACHE_HOME/tessera/tpu-mlir-1.30.2/`` or ``$TESSERA_CMODEL_DIR``).

    >>> from tessera import cmodel
    >>> with cmodel.CModel("bm1684x") as chip:                            # doctest: +SKIP
    ...     chip.ask({"op": "constants"})
    {'npus': 64, 'local_memory_bytes': 262144, 'banks': 16, 'eu': {'8': 64, ...}, ...}

A C model prints to stdout and ends the process on a failed assertion, so it runs in a child
process: this same file, run as a script, loads one chip's library and answers one JSON request
per line on stdin with one JSON line on its own copy of stdout (the model's prints go to
/dev/null). A request the model dies on is answered ``{"error": ...}`` and the child restarts.
It imports nothing of tessera (only numpy), so it runs in any Python 3 with numpy.
"""

from __future__ import annotations

import ctypes
import json
import os
import pathlib
import subprocess
import sys
from typing import Any, Optional

TPU_MLIR_VERSION = "1.30.2"

# Chip -> (library in tpu_mlir/lib, API). BM1684 exports OKKernel (okk_*), its successors
# TPU-Kernel (tpu_*); BM1690/BM1690E are emulators that also need oneDNN and LLVM's OpenMP.
LIBRARIES = {
    "bm1684": ("libcmodel_bm1684.so", "okk"),
    "bm1684x": ("libcmodel_bm1684x.so", "tpu"),
    "bm1684x2": ("libcmodel_bm1684x2.so", "tpu"),
    "bm1688": ("libcmodel_bm1688.so", "tpu"),
    "bm1690": ("libtpuv7_emulator.so", "tpu"),
    "bm1690e": ("libtpuv7.1_emulator.so", "tpu"),
    "sg2380": ("libcmodel_sg2380.so", "tpu"),
    "cv184x": ("libcmodel_cv184x.so", "tpu"),
    "sgtpuv8": ("libcmodel_sgtpuv8.so", "tpu"),
}
CHIPS = list(LIBRARIES)

INSTALL_HINT = ("bash tools/npu_oracle/regenerate.sh --fetch-only (or: pip download --no-deps "
                "--python-version 3.10 --only-binary=:all: tpu-mlir==1.30.2, unzip the wheel and "
                "set TESSERA_CMODEL_DIR to its tpu_mlir/lib)")

# TPU-Kernel's data_type_t codes for one type of each width (tpu_data_type_size confirms the
# width of each when the model loads).
_TPU_DTYPES = {8: 1, 16: 7, 32: 5}  # DT_INT8, DT_INT16, DT_FP32


class CModelUnavailable(RuntimeError):
    """The tpu-mlir wheel's C models are not in the cache (or do not load here)."""


def cache_dir() -> pathlib.Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(base) / "tessera" / f"tpu-mlir-{TPU_MLIR_VERSION}"


def library_dir() -> pathlib.Path:
    """Where the C model libraries are: $TESSERA_CMODEL_DIR, or tpu_mlir/lib in the cache."""
    given = os.environ.get("TESSERA_CMODEL_DIR")
    return pathlib.Path(given) if given else cache_dir() / "tpu_mlir" / "lib"


def available(chip: str = "bm1684x") -> Optional[str]:
    """None when the chip's C model is there, else why not (with how to get it)."""
    if chip not in LIBRARIES:
        return f"unknown chip '{chip}' (the C models: {', '.join(CHIPS)})"
    path = library_dir() / LIBRARIES[chip][0]
    if not path.is_file():
        return f"the C model of {chip} is not at {path}: {INSTALL_HINT}"
    return None


# ---------------------------------------------------------------------------------------------
# The child: one chip's library loaded, requests answered.


class _Dim4(ctypes.Structure):
    _fields_ = [("n", ctypes.c_int), ("c", ctypes.c_int), ("h", ctypes.c_int), ("w", ctypes.c_int)]


def _dim4(values) -> _Dim4:
    return _Dim4(*[int(v) for v in values])


class _Chip:
    """One loaded C model (in the child process)."""

    def __init__(self, chip: str, lib: pathlib.Path):
        name, self.api = LIBRARIES[chip]
        if "tpuv7" in name:
            for dep in ("libomp.so.5", "libdnnl.so.3"):
                ctypes.CDLL(str(lib / "third_party" / dep), mode=ctypes.RTLD_GLOBAL)
        # Lazy binding: sg2380's model references a symbol no library defines.
        m = ctypes.CDLL(str(lib / name), mode=os.RTLD_LAZY | os.RTLD_GLOBAL)
        self.m = m
        m.cmodel_init.argtypes = [ctypes.c_int, ctypes.c_longlong]
        m.cmodel_init(0, 1 << 28)
        u64, ptr = ctypes.c_ulonglong, ctypes.c_void_p
        if self.api == "okk":
            m.okk_initialize()
            m.okk_global_mem_start_addr.restype = u64
            m.okk_global_mem_addr.restype = ptr
            m.okk_global_mem_addr.argtypes = [u64]
            m.okk_local_mem_addr.restype = ptr
            m.okk_local_mem_addr.argtypes = [ctypes.c_uint, ctypes.c_uint]
            self.npus = m.okk_npu_num()
            self.lmem = m.okk_local_mem_size_per_npu()
            self.banks = m.okk_local_mem_bank_per_npu()
            self.global_start = m.okk_global_mem_start_addr()
            self.global_ptr = m.okk_global_mem_addr(self.global_start)
            self.local_ptrs = [m.okk_local_mem_addr(i, 0) for i in range(self.npus)]
            for bits in (8, 16, 32):
                getattr(m, f"okk_gdma_{bits}bit_cpy_S2L").argtypes = [
                    ctypes.c_uint, u64, ctypes.POINTER(_Dim4), ctypes.POINTER(_Dim4),
                    ctypes.POINTER(_Dim4)]
            m.okk_gdma_32bit_matrix_S2L.argtypes = [ctypes.c_uint, u64] + [ctypes.c_int] * 4
        else:
            if "tpuv7" in name:
                m.tpu_kernel_init(0)  # tpu_initialize reads the per-thread state this allocates
            m.tpu_initialize()
            m.tpu_global_mem_get_start_addr.restype = u64
            m.tpu_global_mem_addr.restype = ptr
            m.tpu_global_mem_addr.argtypes = [u64]
            m.tpu_local_mem_addr.restype = ptr
            m.tpu_local_mem_addr.argtypes = [ctypes.c_int, ctypes.c_uint]
            self.npus = m.tpu_npu_num()
            self.lmem = m.tpu_local_mem_size_per_npu()
            self.banks = m.tpu_bank_num()
            self.global_start = m.tpu_global_mem_get_start_addr()
            self.global_ptr = m.tpu_global_mem_addr(self.global_start)
            self.local_ptrs = [m.tpu_local_mem_addr(i, 0) for i in range(self.npus)]
            for bits, code in _TPU_DTYPES.items():
                size = m.tpu_data_type_size(code)
                if size * 8 != bits:
                    raise RuntimeError(f"data type {code} is {size} bytes, not {bits // 8}")
            m.tpu_gdma_cpy_S2L.argtypes = [ctypes.c_uint, u64, ctypes.POINTER(_Dim4),
                                           ctypes.POINTER(_Dim4), ctypes.POINTER(_Dim4),
                                           ctypes.c_int]
            m.tpu_gdma_matrix_S2L.argtypes = [ctypes.c_uint, u64] + [ctypes.c_int] * 5
        self.global_bytes = 1 << 26  # what a request may use of the 256 MiB global memory

    # -- constants and stride functions ------------------------------------------------------

    def eu(self, bits: int) -> int:
        if self.api == "okk":
            return self.m.okk_eu_num() * 32 // bits  # okk_eu_num counts 32-bit lanes
        return self.m.tpu_eu_num(_TPU_DTYPES[bits])

    def constants(self) -> dict:
        eu = {str(bits): self.eu(bits) for bits in (8, 16, 32)}
        return {"npus": self.npus, "local_memory_bytes": self.lmem, "banks": self.banks,
                "eu": eu, "eu_bytes": {k: v * int(k) // 8 for k, v in eu.items()}}

    def channels_per_npu(self, start: int, channels: int) -> int:
        f = self.m.okk_channle_num_per_npu if self.api == "okk" else self.m.tpu_channle_num_per_npu
        return f(int(start), int(channels))

    def aligned_stride(self, start: int, shape, bits: int) -> list:
        stride, dims = _Dim4(), _dim4(shape)
        if self.api == "okk":
            getattr(self.m, f"okk_128_byte_aligned_stride_for_{bits}bit")(
                ctypes.byref(stride), int(start), ctypes.byref(dims))
        else:
            self.m.tpu_aligned_stride(ctypes.byref(stride), int(start), ctypes.byref(dims),
                                      _TPU_DTYPES[bits])
        return [stride.n, stride.c, stride.h, stride.w]

    def compact_stride(self, start: int, shape) -> list:
        stride, dims = _Dim4(), _dim4(shape)
        f = self.m.okk_compact_stride if self.api == "okk" else self.m.tpu_compact_stride
        f(ctypes.byref(stride), int(start), ctypes.byref(dims))
        return [stride.n, stride.c, stride.h, stride.w]

    # -- copies --------------------------------------------------------------------------------

    def _clear_local(self) -> None:
        for p in self.local_ptrs:
            ctypes.memset(p, 0, self.lmem)

    def _local_image(self):
        """All NPUs' local memory as one flat byte array (a view when the model keeps the NPUs
        back to back, as every model tried does)."""
        import numpy as np

        total = self.npus * self.lmem
        first = self.local_ptrs[0]
        if all(p == first + i * self.lmem for i, p in enumerate(self.local_ptrs)):
            return np.ctypeslib.as_array((ctypes.c_uint8 * total).from_address(first))
        return np.concatenate([np.ctypeslib.as_array((ctypes.c_uint8 * self.lmem).from_address(p))
                               for p in self.local_ptrs])

    def _run(self, sources, copy, width: int, count: int, span: int):
        """Runs `copy` once per source pattern (global bytes at the element offsets `sources`)
        and returns per element its (npu, offset) in local memory (-1 where it was not found),
        whether some element landed twice, and how many bytes the copy wrote."""
        import numpy as np

        if span * width > self.global_bytes:
            raise ValueError(f"the source spans {span * width} bytes, more than the "
                             f"{self.global_bytes} a request may use")
        global_view = np.ctypeslib.as_array(
            (ctypes.c_uint8 * (span * width)).from_address(self.global_ptr))
        byte_offsets = (sources[:, None] * width + np.arange(width)[None, :]).reshape(-1)

        def run_with(values: np.ndarray):  # values: (count, width) bytes
            global_view[:] = 0
            global_view[byte_offsets] = values.reshape(-1)
            self._clear_local()
            copy()
            return self._local_image()

        # Pass 1: every source byte 0xFF over local memory cleared to 0 shows the bytes written.
        written = np.flatnonzero(run_with(np.full((count, width), 0xFF, dtype=np.uint8)) == 0xFF)
        index = np.arange(1, count + 1, dtype=np.uint64)
        planes = max(1, (int(count).bit_length() + 7) // 8)
        if width >= planes:  # one pass: each element holds its index + 1, little-endian
            values = np.zeros((count, width), dtype=np.uint8)
            for b in range(planes):
                values[:, b] = (index >> np.uint64(8 * b)) & np.uint64(0xFF)
            image = run_with(values)
            starts = written[written % width == 0]
            decoded = np.zeros(len(starts), dtype=np.uint64)
            for b in range(planes):
                decoded |= image[starts + b].astype(np.uint64) << np.uint64(8 * b)
        else:  # 8-bit elements, more than 255 of them: one pass per byte of the index
            starts = written
            decoded = np.zeros(len(starts), dtype=np.uint64)
            for b in range(planes):
                plane = ((index >> np.uint64(8 * b)) & np.uint64(0xFF)).astype(np.uint8)
                image = run_with(plane[:, None])
                decoded |= image[starts].astype(np.uint64) << np.uint64(8 * b)
        found = decoded.astype(np.int64) - 1
        ok = (found >= 0) & (found < count)
        twice = len(np.unique(found[ok])) != int(ok.sum())
        places = np.full((count, 2), -1, dtype=np.int64)
        places[found[ok], 0] = starts[ok] // self.lmem
        places[found[ok], 1] = starts[ok] % self.lmem
        return places, twice, int(len(written))

    def copy(self, bits: int, shape, address: int, dst_stride=None, src_stride=None) -> dict:
        import numpy as np

        width = bits // 8
        n, c, h, w = (int(v) for v in shape)
        count = n * c * h * w
        src = src_stride if src_stride is not None else [c * h * w, h * w, w, 1]
        grid = np.indices((n, c, h, w)).reshape(4, -1).astype(np.int64)
        sources = (grid * np.array(src, dtype=np.int64)[:, None]).sum(axis=0)
        span = int(sources.max()) + 1
        dims = _dim4(shape)
        dst = ctypes.byref(_dim4(dst_stride)) if dst_stride is not None else None
        srcp = ctypes.byref(_dim4(src_stride)) if src_stride is not None else None

        def run():
            if self.api == "okk":
                getattr(self.m, f"okk_gdma_{bits}bit_cpy_S2L")(
                    int(address), self.global_start, ctypes.byref(dims), dst, srcp)
                self.m.okk_poll()
            else:
                self.m.tpu_gdma_cpy_S2L(int(address), self.global_start, ctypes.byref(dims),
                                        dst, srcp, _TPU_DTYPES[bits])
                self.m.tpu_poll()

        places, twice, written = self._run(sources, run, width, count, span)
        return {"places": places.reshape(-1).tolist(), "twice": twice,
                "written_bytes": written}

    def copy_bytes(self, bits: int, shape, address: int, data: bytes, dst_stride=None) -> dict:
        """The chip's local memory after copying `data` (the tensor's bytes, row-major) with its
        GDMA: the positions (NPU * S + offset) the copy wrote and the bytes it left there."""
        import numpy as np

        n, c, h, w = (int(v) for v in shape)
        width = bits // 8
        if len(data) != n * c * h * w * width:
            raise ValueError(f"{len(data)} bytes of data for {n * c * h * w} elements")
        if len(data) > self.global_bytes:
            raise ValueError("the data is larger than a request may use")
        global_view = np.ctypeslib.as_array(
            (ctypes.c_uint8 * len(data)).from_address(self.global_ptr))
        dims = _dim4(shape)
        dst = ctypes.byref(_dim4(dst_stride)) if dst_stride is not None else None

        def run(fill: np.ndarray):
            global_view[:] = fill
            self._clear_local()
            if self.api == "okk":
                getattr(self.m, f"okk_gdma_{bits}bit_cpy_S2L")(
                    int(address), self.global_start, ctypes.byref(dims), dst, None)
                self.m.okk_poll()
            else:
                self.m.tpu_gdma_cpy_S2L(int(address), self.global_start, ctypes.byref(dims),
                                        dst, None, _TPU_DTYPES[bits])
                self.m.tpu_poll()
            return self._local_image()

        written = np.flatnonzero(run(np.full(len(data), 0xFF, dtype=np.uint8)) == 0xFF)
        image = run(np.frombuffer(data, dtype=np.uint8))
        return {"written": written.tolist(), "bytes": image[written].tobytes().hex()}

    def matrix(self, bits: int, rows: int, cols: int, cols_per_channel: int, row_stride: int,
               address: int) -> dict:
        import numpy as np

        width = bits // 8
        count = int(rows) * int(cols)
        i, j = np.indices((int(rows), int(cols))).reshape(2, -1).astype(np.int64)
        sources = i * int(row_stride) + j
        span = int(sources.max()) + 1

        def run():
            if self.api == "okk":
                if bits != 32:
                    raise ValueError("BM1684 has a 32-bit matrix copy only")
                self.m.okk_gdma_32bit_matrix_S2L(int(address), self.global_start, int(rows),
                                                 int(cols), int(cols_per_channel),
                                                 int(row_stride))
                self.m.okk_poll()
            else:
                self.m.tpu_gdma_matrix_S2L(int(address), self.global_start, int(rows), int(cols),
                                           int(cols_per_channel), int(row_stride),
                                           _TPU_DTYPES[bits])
                self.m.tpu_poll()

        places, twice, written = self._run(sources, run, width, count, span)
        return {"places": places.reshape(-1).tolist(), "twice": twice,
                "written_bytes": written}

    def from_4n_int8(self, shape, source: int, destination: int, work: int, positions,
                     values, signed: bool) -> dict:
        """BM1684's own 4N conversion, asked where it reads each element: `values` (bytes) are
        written at `positions` (NPU * S + offset) of cleared local memory, the 4N int8 tensor at
        `source` is converted to f32 at `destination` (aligned) by the chip's BDC, copied to
        global memory by its GDMA, and returned in N,C,H,W order."""
        import numpy as np

        if self.api != "okk":
            raise ValueError("only BM1684's OKKernel API converts from 4N")
        m, u64 = self.m, ctypes.c_ulonglong
        m.okk_bdc_4N_int8_to_fp32.argtypes = [ctypes.c_uint] * 3 + [ctypes.POINTER(_Dim4),
                                                                    ctypes.c_bool, ctypes.c_bool]
        m.okk_gdma_32bit_cpy_L2S.argtypes = [u64, ctypes.c_uint, ctypes.POINTER(_Dim4),
                                             ctypes.POINTER(_Dim4), ctypes.POINTER(_Dim4)]
        count = int(np.prod([int(v) for v in shape]))
        if count * 4 > self.global_bytes:
            raise ValueError("the tensor is larger than a request may use")
        self._clear_local()
        npus = [np.ctypeslib.as_array((ctypes.c_uint8 * self.lmem).from_address(p))
                for p in self.local_ptrs]
        for position, value in zip(positions, values):
            npus[int(position) // self.lmem][int(position) % self.lmem] = int(value) & 0xFF
        dims = _dim4(shape)
        m.okk_bdc_4N_int8_to_fp32(int(destination), int(source), int(work), ctypes.byref(dims),
                                  bool(signed), True)
        m.okk_poll()
        global_view = np.ctypeslib.as_array(
            (ctypes.c_uint8 * (count * 4)).from_address(self.global_ptr))
        global_view[:] = 0
        m.okk_gdma_32bit_cpy_L2S(self.global_start, int(destination), ctypes.byref(dims), None,
                                 None)
        m.okk_poll()
        return {"values": np.frombuffer(global_view.tobytes(), dtype=np.float32).tolist()}

    def answer(self, request: dict) -> Any:
        op = request.get("op")
        if op == "constants":
            return self.constants()
        if op == "channels_per_npu":
            return {"channels_per_npu": self.channels_per_npu(request["start"],
                                                               request["channels"])}
        if op == "aligned_stride":
            return {"stride": self.aligned_stride(request["start"], request["shape"],
                                                  request["bits"])}
        if op == "compact_stride":
            return {"stride": self.compact_stride(request["start"], request["shape"])}
        if op == "copy":
            return self.copy(request["bits"], request["shape"], request["address"],
                             request.get("dst_stride"), request.get("src_stride"))
        if op == "copy_bytes":
            return self.copy_bytes(request["bits"], request["shape"], request["address"],
                                   bytes.fromhex(request["data"]), request.get("dst_stride"))
        if op == "matrix":
            return self.matrix(request["bits"], request["rows"], request["cols"],
                               request["cols_per_channel"], request["row_stride"],
                               request["address"])
        if op == "from_4n_int8":
            return self.from_4n_int8(request["shape"], request["source"], request["destination"],
                                     request["work"], request["positions"], request["values"],
                                     request.get("signed", True))
        raise ValueError(f"unknown request op {op!r}")


def _serve(chip: str) -> int:
    """The child: stdout becomes /dev/null for the model; answers go to a copy of it."""
    out = os.fdopen(os.dup(1), "w", buffering=1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    why = available(chip)
    if why is None:
        try:
            model = _Chip(chip, library_dir())
        except (OSError, RuntimeError, AttributeError) as error:
            why = f"the C model of {chip} does not load: {error}"
    if why is not None:
        out.write(json.dumps({"unavailable": why}) + "\n")
        return 0
    out.write(json.dumps({"ready": {"chip": chip, "tpu_mlir": TPU_MLIR_VERSION}}) + "\n")
    for line in sys.stdin:
        try:
            answer = model.answer(json.loads(line))
        except (ValueError, KeyError, TypeError) as error:
            answer = {"error": str(error)}
        out.write(json.dumps(answer) + "\n")
    return 0


# ---------------------------------------------------------------------------------------------
# The parent side.


class CModel:
    """One chip's C model in a child process; restarted when a request kills it."""

    def __init__(self, chip: str, python: Optional[str] = None):
        if chip not in LIBRARIES:
            raise ValueError(f"unknown chip '{chip}' (the C models: {', '.join(CHIPS)})")
        self.chip = chip
        self.python = python or sys.executable
        self._child: Optional[subprocess.Popen] = None

    def __enter__(self) -> "CModel":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self._child is not None:
            self._child.stdin.close()
            self._child.wait()
            self._child = None

    def _start(self) -> None:
        self._child = subprocess.Popen(
            [self.python, os.path.abspath(__file__), "--serve", self.chip],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        hello = json.loads(self._child.stdout.readline() or '{"unavailable": "no answer"}')
        if "ready" not in hello:
            self.close()
            raise CModelUnavailable(hello.get("unavailable", "the C model did not start"))

    def ask(self, request: dict) -> dict:
        """One answer; {"error": ...} when the model refused or died on the request."""
        if self._child is None:
            self._start()
        self._child.stdin.write(json.dumps(request) + "\n")
        self._child.stdin.flush()
        line = self._child.stdout.readline()
        if not line:
            self._child.wait()
            code = self._child.returncode
            self._child = None
            return {"error": f"the C model stopped on this request (exit status {code}: "
                             "a failed assertion)"}
        return json.loads(line)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--serve":
        sys.exit(_serve(sys.argv[2]))
    print(f"usage: {sys.argv[0]} --serve CHIP   (CHIP: {', '.join(CHIPS)})", file=sys.stderr)
    sys.exit(2)
