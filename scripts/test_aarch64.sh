#!/usr/bin/env bash
# Cross-compiles the library and its relayout tests for aarch64 (Debian's g++-aarch64-linux-gnu
# and the arm64 builds of fmt, GoogleTest and Highway) and runs them under qemu-aarch64 (Debian's
# qemu-user). Installs what is missing. Exit status 0 when every test passed.
# On aarch64 the Highway kernels (streaming copies, transposes, interleaves, bit packing) run
# NEON or SVE, whichever qemu's CPU offers; the tests run every target qemu supports.
#
#   scripts/test_aarch64.sh            # build/aarch64; extra arguments go to the test binary
set -euo pipefail
cd "$(dirname "$0")/.."

sudo_cmd=""
[ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
packages=(g++-aarch64-linux-gnu qemu-user nlohmann-json3-dev cmake ninja-build
  libfmt-dev:arm64 libgtest-dev:arm64 libhwy-dev:arm64)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing Debian packages: ${missing[*]}"
  dpkg --print-foreign-architectures | grep -qx arm64 || $sudo_cmd dpkg --add-architecture arm64
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
# -O1: the build dominates the time (a minute per file on a loaded 2-core machine at -O3), and the
# tests check results, not speed.
cmake -S . -B build/aarch64 -G Ninja -DCMAKE_BUILD_TYPE=Release '-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG' \
  -DTESSERA_WERROR=ON \
  -DCMAKE_SYSTEM_NAME=Linux -DCMAKE_SYSTEM_PROCESSOR=aarch64 \
  -DCMAKE_CXX_COMPILER=aarch64-linux-gnu-g++ "${launcher[@]}" \
  -DTESSERA_BUILD_CLI=OFF -DTESSERA_BUILD_BENCHMARKS=OFF -DTESSERA_TEST_ONLY=relayout \
  '-DTESSERA_LAYERS=core;xla;npu;relayout' >/dev/null
cmake --build build/aarch64 --target tessera_tests

aarch64-linux-gnu-readelf -h build/aarch64/tests/tessera_tests | grep -q AArch64 ||
  { echo "error: build/aarch64/tests/tessera_tests is not an aarch64 binary" >&2; exit 1; }
# The binary's loader (/lib/ld-linux-aarch64.so.1, from libc6:arm64) finds the arm64 libraries
# in /usr/lib/aarch64-linux-gnu.
# Left out: the forked child of a threaded process starts threads, and under qemu-user that child
# exits with 127 (the test passes natively and under TSan in scripts/test.sh).
qemu-aarch64 build/aarch64/tests/tessera_tests \
  --gtest_filter=-WorkerPool.AForkedChildStartsItsOwnHelpers "$@"
