#!/usr/bin/env bash
# Builds tessera and runs the main job on its embedded default example.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_dependencies.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DPython3_EXECUTABLE="$(command -v python3)" >/dev/null
cmake --build build/release --target tessera_cli
tessera=build/release/tessera
# The tiled layout spec's Figure 1: F32[3,5] in 2x2 tiles; element (2,3) sits at offset 17.
$tessera info 'F32[3,5]{1,0:T(2,2)}'
echo "index of (2,3):"
$tessera index 'F32[3,5]{1,0:T(2,2)}' 2,3
