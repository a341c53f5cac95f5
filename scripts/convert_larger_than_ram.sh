#!/usr/bin/env bash
# Converts a .npy larger than this machine's RAM to T(8,128) and reports the time and peak memory
# (issue 12: "files larger than memory work"). Manual, not run in CI: it writes a real output as
# large as the file (the input is sparse: a few marker elements, holes elsewhere).
#
#   scripts/convert_larger_than_ram.sh [TESSERA [GiB [DIRECTORY]]]
#     TESSERA    the binary (default build/release/tessera)
#     GiB        the file's size (default: RAM rounded up to a multiple of 8 GiB, plus 8 GiB)
#     DIRECTORY  where the two files go (default build/larger-than-ram; removed afterwards)
#
# Prints the size, RAM, seconds, GB/s, peak RSS and peak anonymous RSS, then checks the markers
# at their tiled positions. Exit status 0 when the conversion succeeded and the output is right.
set -euo pipefail
cd "$(dirname "$0")/.."

tessera="${1:-build/release/tessera}"
ram_kib=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
default_gib=$(((ram_kib / 1048576 / 8 + 1) * 8 + 8))
gib="${2:-$default_gib}"
directory="${3:-build/larger-than-ram}"

mkdir -p "$directory"
trap 'rm -f "$directory/in.npy" "$directory/out.bin"; rmdir "$directory" 2>/dev/null || true' EXIT
free_gib=$(($(df --output=avail -k "$directory" | tail -1) / 1048576))
if ((free_gib < gib + 2)); then
  echo "error: $directory has $free_gib GiB free; the output needs $gib GiB (and 2 to spare)" >&2
  exit 2
fi

python3 - "$tessera" "$gib" "$directory" "$ram_kib" <<'EOF'
import os
import resource
import subprocess
import sys
import time

import numpy as np

tessera, gib, directory, ram_kib = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
columns = 16384  # u32: 64 KiB per row
rows = (gib << 30) // (columns * 4) // 8 * 8
source, out = os.path.join(directory, "in.npy"), os.path.join(directory, "out.bin")

# Sparse input: the header, holes, and a marker (its own row-major index) in a few rows.
array = np.lib.format.open_memmap(source, mode="w+", dtype=np.uint32, shape=(rows, columns))
marked = [(r, c) for r in (0, 7, 8, rows // 3, rows // 2 + 5, rows - 1)
          for c in (0, 127, 128, columns // 2 + 3, columns - 1)]
for r, c in marked:
    array[r, c] = (r * columns + c) % (1 << 32)
array.flush()
del array

size = os.path.getsize(source)
print(f"file: u32[{rows},{columns}], {size / (1 << 30):.1f} GiB (sparse input); "
      f"RAM {ram_kib / (1 << 20):.1f} GiB")


def anonymous_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("RssAnon:"))
    except (OSError, StopIteration):
        return 0


tiled = f"u32[{rows},{columns}]{{1,0:T(8,128)}}"
start = time.perf_counter()
process = subprocess.Popen([tessera, "convert", "--quiet", "--to", tiled, source, out])
peak_anonymous = 0
while process.poll() is None:
    peak_anonymous = max(peak_anonymous, anonymous_kib(process.pid))
    time.sleep(0.05)
seconds = time.perf_counter() - start
peak_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB
if process.returncode != 0:
    sys.exit(f"tessera convert failed with exit status {process.returncode}")
print(f"tessera convert: {seconds:.1f} s, {size / seconds / 1e9:.2f} GB/s, peak RSS "
      f"{peak_rss / 1024:.0f} MiB, peak anonymous RSS {peak_anonymous / 1024:.0f} MiB "
      "(sampled every 50 ms)")

# Check the markers at their tiled offsets (docs/design/tiled-layouts.md: 8x128 tiles, row-major, in row-major order).
assert os.path.getsize(out) == rows * columns * 4, "the output has the wrong size"
result = np.memmap(out, dtype=np.uint32, mode="r")
for r, c in marked:
    offset = ((r // 8) * (columns // 128) + c // 128) * 1024 + (r % 8) * 128 + c % 128
    assert result[offset] == (r * columns + c) % (1 << 32), f"element {r},{c} is wrong"
    assert result[offset + (1 if c % 128 != 127 else -1)] == 0, f"beside {r},{c} is not zero"
print(f"output: {len(marked)} markers at their tiled positions, zeros beside them")
EOF
