#!/usr/bin/env bash
# Builds tessera and runs every test: the release build (warnings as errors), the same suite under
# ASan+UBSan, the worker pool under TSan, each parser's libFuzzer target for a bounded time, and
# the relayout tests on an emulated AVX-512 CPU. Fails on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_dependencies.sh
python=$(command -v python3)
jobs=$(nproc)
fuzz_seconds=${TESSERA_FUZZ_SECONDS:-40}
# Each stage's header carries the time since the start, so a CI log shows where the minutes go.
# On exit, pass or fail, the stages' start times are repeated: a log's tail is all some CI shows.
stages=()
stage() {
  stages+=("$(printf '[%d:%02d] %s' $((SECONDS / 60)) $((SECONDS % 60)) "$*")")
  printf '=== %s ===\n' "${stages[-1]}"
}
stage_summary() {
  printf 'stages started at (minutes since the start):\n'
  printf '  %s\n' "${stages[@]}"
  printf '  [%d:%02d] exit\n' $((SECONDS / 60)) $((SECONDS % 60))
}
trap stage_summary EXIT

# The wheel below compiles the library and CLI sources this build compiles, with the same flags.
# Through ccache they are compiled once: depend mode (no extra preprocessor run on a miss), paths
# relative to the clone, and build/release and build/wheel at the same depth, so both builds' command
# lines are identical. Without it the wheel's build was a large share of CI's time
# (docs/notes/2026-11-27-ci-time.md).
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_DIR=${CCACHE_DIR:-$PWD/build/ccache} CCACHE_BASEDIR=$PWD CCACHE_DEPEND=1
  export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-2G}
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi

# Sophgo's C models (the tpu-mlir wheel, 311 MB, cached in ~/.cache/tessera, outside the clone)
# are the NPU tests' oracle, not a dependency: tests/cli/test_npu_cmodel_live.py skips without them.
stage "NPU C models: tpu-mlir wheel fetched into the cache when the network allows"
bash tools/npu_oracle/regenerate.sh --fetch-only ||
  echo "the tpu-mlir wheel was not fetched: the live NPU tests will skip"

stage "release build, warnings as errors"
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DTESSERA_WERROR=ON \
  -DTESSERA_UNITY_BUILD=ON -DPython3_EXECUTABLE="$python" "${launcher[@]}" >/dev/null
cmake --build build/release
ctest --test-dir build/release --output-on-failure -j "$jobs"

stage "every library and CLI header compiles alone (a unity build's batches would hide a missing include)"
bash scripts/check_headers.sh build/release

stage "extension checklists: a made-up TPU generation and NPU chip, answered by every command"
# CONTRIBUTING.md's checklists, exercised: only the two tables' sources differ from the release
# build, so with ccache the rest of this build is the release build's objects again.
cmake -S . -B build/extension -G Ninja -DCMAKE_BUILD_TYPE=Release -DTESSERA_WERROR=ON \
  -DTESSERA_UNITY_BUILD=ON -DTESSERA_TEST_TPU_GENERATION=ON -DTESSERA_TEST_NPU_CHIP=ON -DTESSERA_BUILD_TESTS=OFF \
  -DTESSERA_BUILD_BENCHMARKS=OFF "${launcher[@]}" >/dev/null
cmake --build build/extension --target tessera_cli
"$python" -m pytest -q -p no:cacheprovider tests/cli/test_extension_checklist.py \
  --tessera=build/extension/tessera

# The AVX-512 stage needs only the release build's tests. Without AVX-512 it runs them in Bochs,
# which interprets on one core for a long time; started here, that overlaps the stages below
# instead of adding to them (docs/notes/2026-11-27-ci-time.md). Its own session,
# so that a failure anywhere stops it too; its output follows the other stages.
avx512_log=build/avx512-stage.log
avx512_pid=
if [ "$(uname -m)" = x86_64 ]; then
  stage "AVX-512 stage started in the background (output in $avx512_log, shown at the end)"
  setsid bash scripts/test_avx512.sh >"$avx512_log" 2>&1 &
  avx512_pid=$!
  trap 'kill -- -"$avx512_pid" 2>/dev/null || true; stage_summary' EXIT
fi

stage "Python package: pip wheel ., installed in a fresh venv; its tests (XLA oracle included)"
# One build serves both checks: the wheel is what `pip install .` would build and install.
# jax[tpu] is only the tests' oracle, not a dependency: XLA's parser for the notation
# (tests/python/test_xla_oracle.py) and libtpu, the real TPU compiler, run deviceless on fresh
# random arrays (tests/python/test_tpu_compiler_live.py). About 20 s to install.
"$python" -c "import jax, libtpu; assert jax.__version__ == '0.10.2'" >/dev/null 2>&1 ||
  "$python" -m pip install -q --disable-pip-version-check "jax[tpu]==0.10.2"
rm -rf build/wheelhouse build/python-venv
# The release build's compiler (c++, where scikit-build-core would pick g++: another name misses
# the cache), warnings as errors, and a build directory at build/release's depth.
cxx=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' build/release/CMakeCache.txt)
wheel_settings=(-C build-dir=build/wheel -C cmake.define.TESSERA_WERROR=ON
  -C cmake.define.CMAKE_CXX_COMPILER="$cxx")
((${#launcher[@]})) && wheel_settings+=(-C cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache)
"$python" -m pip wheel -q --disable-pip-version-check --no-deps -w build/wheelhouse \
  "${wheel_settings[@]}" .
"$python" -m venv --system-site-packages build/python-venv
build/python-venv/bin/python -m pip install -q --disable-pip-version-check build/wheelhouse/tessera-*.whl
# tests/docs: every example of README.md and docs/ runs as shown, --json outputs match their schemas,
# the generated reference pages are up to date, and no file points outside the repository.
(cd build && TESSERA_CLI="$PWD/release/tessera" python-venv/bin/python -m pytest -q --durations=8 ../tests/python ../tests/docs)
version=$(cd build && python-venv/bin/python -c 'import tessera; print(tessera.__version__)')
test "$(build/python-venv/bin/tessera --version)" = "tessera $version"
test "$(build/python-venv/bin/python -m tessera --version)" = "tessera $version"
echo "wheel $(basename build/wheelhouse/tessera-*.whl): tessera $version"

stage "documentation: the site built with mkdocs --strict (a broken link or anchor fails)"
"$python" -m mkdocs build --strict --quiet --site-dir build/site

stage "ASan + UBSan: every test, and the parsers' fuzz targets, from one clang build"
# One build for both: the library carries libFuzzer's coverage hooks (inert outside a fuzzer) and
# the sanitizers, so the tests and the fuzz targets share its objects. It links libfmt instead of
# compiling fmt header-only into every source, which halves its build time (it is never installed).
cmake -S . -B build/sanitize -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DTESSERA_WERROR=ON -DTESSERA_SANITIZE=ON -DTESSERA_FUZZ=ON -DTESSERA_BUILD_BENCHMARKS=OFF \
  -DTESSERA_FMT_HEADER_ONLY=OFF -DTESSERA_INSTALL=OFF -DTESSERA_UNITY_BUILD=ON \
  -DPython3_EXECUTABLE="$python" >/dev/null
cmake --build build/sanitize
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build/sanitize --output-on-failure -j "$jobs"

stage "ThreadSanitizer: the worker pool's lock-free hand-off between threads"
# TSan cannot share a build with ASan; the pool and its test are small enough to build alone
# (with the error type and text helpers a pool that cannot start its threads reports through).
# die_after_fork=0: the fork test starts threads in a child of a threaded parent on purpose.
g++ -std=c++20 -O1 -g -fsanitize=thread -Wall -Wextra -Werror -Isrc -Iinclude \
  src/relayout/worker_pool.cpp src/core/error.cpp src/core/utf8_text.cpp \
  tests/relayout/worker_pool_test.cpp -lgtest -lgtest_main -lfmt -pthread -o build/worker_pool_tsan
TSAN_OPTIONS=die_after_fork=0:halt_on_error=1 build/worker_pool_tsan

stage "fuzzing every parser for ${fuzz_seconds}s each, $jobs at a time"
fuzz_one() {
  local fuzzer=$1 name corpus
  name=$(basename "$fuzzer")
  corpus=build/sanitize/fuzz-corpus/$name
  mkdir -p "$corpus"
  cp fuzz/seeds/"${name#fuzz_}"/* "$corpus"/ 2>/dev/null || true
  "$fuzzer" -max_total_time="$fuzz_seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="build/sanitize/$name-" "$corpus" >"build/sanitize/$name.log" 2>&1
}
failed=()
pids=() names=()
for fuzzer in build/sanitize/fuzz/fuzz_*; do
  [ -x "$fuzzer" ] || continue
  fuzz_one "$fuzzer" & pids+=($!) names+=("$(basename "$fuzzer")")
  if ((${#pids[@]} == jobs)); then
    for i in "${!pids[@]}"; do wait "${pids[$i]}" || failed+=("${names[$i]}"); done
    pids=() names=()
  fi
done
for i in "${!pids[@]}"; do wait "${pids[$i]}" || failed+=("${names[$i]}"); done
for log in build/sanitize/fuzz_*.log; do
  echo "--- $(basename "$log" .log)"
  tail -n 12 "$log"
done
if ((${#failed[@]})); then
  echo "fuzz targets that found a failure: ${failed[*]} (traces in build/sanitize/<name>.log, inputs in build/sanitize/<name>-crash-*)"
  exit 1
fi

stage "benchmarks build and start (smoke run, not a measurement)"
build/release/bench/tessera_bench --benchmark_filter='BM_LinearIndexRandom/0' \
  --benchmark_min_time=0.01 >/dev/null
build/release/bench/tessera_bench --benchmark_filter='BM_(Copy|Relayout)/f32_nchw_to_npu_aligned$' \
  --benchmark_min_time=0.01 >/dev/null

stage "AVX-512: the relayout tests with AVX3 code required (natively, or on an emulated Skylake-X)"
# Natively on an AVX-512 host; elsewhere under Bochs (QEMU cannot execute AVX-512). The guest runs
# this machine's x86-64 test binary, so non-x86 hosts skip the stage.
if [ -n "$avx512_pid" ]; then
  avx512_status=0
  wait "$avx512_pid" || avx512_status=$?
  trap stage_summary EXIT
  cat "$avx512_log"
  if ((avx512_status != 0)); then
    echo "the AVX-512 stage failed (exit status $avx512_status)"
    exit 1
  fi
else
  echo "skipped: $(uname -m) is not x86-64"
fi

stage "all test stages passed"
