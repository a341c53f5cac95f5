#!/usr/bin/env bash
# Regenerates tests/fixtures/tpu_oracle/ with the real TPU compiler: makes a venv with jax[tpu]
# at the version the fixtures record (no TPU needed: deviceless AOT compilation), then runs
# run.py and memory_programs.py. Extra arguments go to run.py (e.g. --only random). About ten minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=${TESSERA_ORACLE_VENV:-build/tpu-oracle-venv}
jax_version=${TESSERA_ORACLE_JAX:-0.10.2}
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -c "import jax, libtpu; assert jax.__version__ == '$jax_version'" 2>/dev/null ||
  "$venv/bin/pip" install -q --disable-pip-version-check "jax[tpu]==$jax_version"
export TPU_ACCELERATOR_TYPE=${TPU_ACCELERATOR_TYPE:-v5litepod-4} ALLOW_MULTIPLE_LIBTPU_LOAD=1
export JAX_PLATFORMS=${JAX_PLATFORMS:-cpu}
"$venv/bin/python" tools/tpu_oracle/run.py "$@"
# Program-memory fixtures (tests/fixtures/tpu_memory): dumps and memory_analysis() figures.
exec "$venv/bin/python" tools/tpu_oracle/memory_programs.py
