#!/usr/bin/env bash
# Regenerates tests/fixtures/tpu_mlir_plans/ with tpu-mlir itself (tpu_mlir_plans.py says what).
# Makes a Python 3.10 venv in the cache (tpu-mlir's wheel wants 3.10; PYTHON310 names one),
# installs the wheel regenerate.sh downloads plus what model_transform.py imports, and moves the
# wheel's own glibc libraries aside: loaded by the tools, they break the system's libexpat.
#   bash tools/npu_oracle/tpu_mlir_plans.sh [--only conv_stem]
set -euo pipefail
cd "$(dirname "$0")/../.."
version=1.30.2
cache=${XDG_CACHE_HOME:-$HOME/.cache}/tessera
venv=$cache/tpu-mlir-venv
python310=${PYTHON310:-$HOME/.pyenv/versions/3.10.13/bin/python}
bash tools/npu_oracle/regenerate.sh --fetch-only >/dev/null
if [ ! -x "$venv/bin/model_deploy.py" ]; then
  "$python310" -m venv "$venv"
  "$venv/bin/pip" install -q "$cache/tpu-mlir-$version/tpu_mlir-$version-py3-none-any.whl" \
    onnx==1.14.1 onnxruntime==1.16.3 psutil onnxsim "setuptools<70"
  # torch: model_transform.py imports it (PyPI's build; the CPU index may be out of reach).
  "$venv/bin/pip" install -q torch "setuptools<70"
fi
third_party=$("$venv/bin/python" -c 'import tpu_mlir, os; print(os.path.dirname(tpu_mlir.__file__))')/lib/third_party
mkdir -p "$third_party/moved-aside"
for lib in libc.so.6 libm.so.6 libpthread.so.0; do
  if [ -e "$third_party/$lib" ]; then mv "$third_party/$lib" "$third_party/moved-aside/"; fi
done
export PATH=$venv/bin:$PATH
exec "$venv/bin/python" tools/npu_oracle/tpu_mlir_plans.py "$@"
