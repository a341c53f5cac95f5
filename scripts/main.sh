#!/usr/bin/env bash
# Builds tessera and runs the main job on its embedded default examples: the tiled layout spec's
# Figure 1 and the padding-heavy TPU shape s32[2048,1,128,128,4] (why 32x?).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_dependencies.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DTESSERA_UNITY_BUILD=ON \
  -DPython3_EXECUTABLE="$(command -v python3)" >/dev/null
cmake --build build/release --target tessera_cli
build/release/tessera explain
