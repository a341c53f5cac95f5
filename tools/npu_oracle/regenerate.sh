#!/usr/bin/env bash
# Regenerates tests/fixtures/npu_oracle/ from Sophgo's C models: downloads the tpu-mlir wheel
# (pip, into the cache, once), extracts its C model libraries next to it, then runs run.py.
#   bash tools/npu_oracle/regenerate.sh                 # every chip
#   bash tools/npu_oracle/regenerate.sh --fetch-only    # only download and extract
#   bash tools/npu_oracle/regenerate.sh --chips bm1684  # extra arguments go to run.py
# The cache is ${XDG_CACHE_HOME:-~/.cache}/tessera/tpu-mlir-1.30.2 (python/tessera/cmodel.py
# looks there); the models load in any Python 3 with numpy, the wheel's Python 3.10 is not needed.
set -euo pipefail
cd "$(dirname "$0")/../.."
version=1.30.2
cache=${XDG_CACHE_HOME:-$HOME/.cache}/tessera/tpu-mlir-$version
python=${PYTHON:-python3}
mkdir -p "$cache"
wheel=$cache/tpu_mlir-$version-py3-none-any.whl
if [ ! -f "$wheel" ]; then
  "$python" -m pip download -q --disable-pip-version-check --no-deps --python-version 3.10 \
    --only-binary=:all: "tpu-mlir==$version" -d "$cache"
fi
if [ ! -f "$cache/tpu_mlir/lib/libcmodel_bm1684.so" ]; then
  # Only the C models and the two libraries BM1690's emulator needs (oneDNN, LLVM OpenMP): the
  # wheel's own glibc in lib/third_party must not be loaded by the system's Python.
  "$python" - "$wheel" "$cache" <<'PY'
import sys, zipfile
wheel, cache = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        base = name.rsplit("/", 1)[-1]
        if name.startswith("tpu_mlir/lib/") and (
                base.startswith(("libcmodel", "libtpuv7")) or
                base in ("libdnnl.so.3", "libomp.so.5")):
            z.extract(name, cache)
PY
fi
if [ "${1:-}" = "--fetch-only" ]; then
  echo "C models in $cache/tpu_mlir/lib"
  exit 0
fi
exec "$python" tools/npu_oracle/run.py "$@"
