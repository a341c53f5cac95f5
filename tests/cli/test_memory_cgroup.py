"""`tessera convert` of a file larger than the memory it may use, page cache included: files larger
than memory work.

RLIMIT_DATA (test_file_safety.py) bounds only anonymous memory. A memory cgroup also charges the
page cache a process brings in: the input it reads and the dirty output pages it writes through
its mapping (kernel docs, cgroup-v1/memory.rst "Accounting"; cgroup-v2.rst "Memory"). Here the CLI
runs inside a cgroup whose limit is a quarter of the file, so the kernel must reclaim read pages
and write back dirty ones while the conversion runs; it must still finish, without an OOM kill,
with correct output.
"""
import os
import subprocess
import time

import numpy as np
import pytest

ROWS = COLUMNS = 8192  # u32: 256 MiB of data
FILE_BYTES = ROWS * COLUMNS * 4
LIMIT_BYTES = 64 << 20
TILED = f"u32[{ROWS},{COLUMNS}]{{1,0:T(8,128)}}"


def mounts(kind):
    """(mount point, options) of each mounted filesystem of type `kind`."""
    with open("/proc/self/mounts") as f:
        fields = [line.split() for line in f]
    return [(entry[1], entry[3].split(",")) for entry in fields if entry[2] == kind]


def filesystem_type(path):
    """The type of the filesystem holding `path` (the longest mount point above it)."""
    path = os.path.realpath(path)
    best = ("", "")
    with open("/proc/self/mounts") as f:
        for entry in (line.split() for line in f):
            point = entry[1]
            inside = path == point or path.startswith(point.rstrip("/") + "/")
            if inside and len(point) >= len(best[0]):
                best = (point, entry[2])
    return best[1]


def own_cgroup(match):
    """This process's cgroup path in the hierarchy whose /proc/self/cgroup line `match` accepts."""
    with open("/proc/self/cgroup") as f:
        for line in f:
            number, controllers, path = line.rstrip("\n").split(":", 2)
            if match(number, controllers.split(",")):
                return path
    return None


def memory_parent():
    """(version, directory) under which a memory-limited cgroup can be made, or a skip reason.

    v1: the memory hierarchy, below this process's own cgroup (the limit then also counts for
    its parents). v2: the nearest cgroup, from this process's own upwards, whose children get the
    memory controller (cgroup.subtree_control lists it).
    """
    for point, options in mounts("cgroup"):
        path = own_cgroup(lambda number, controllers: "memory" in controllers)
        if "memory" in options and path is not None:
            return 1, os.path.normpath(point + path)
    for point, _ in mounts("cgroup2"):
        path = own_cgroup(lambda number, controllers: number == "0")
        directory = os.path.normpath(point + (path or "/"))
        while directory.startswith(os.path.normpath(point)):
            try:
                with open(os.path.join(directory, "cgroup.subtree_control")) as f:
                    if "memory" in f.read().split():
                        return 2, directory
            except OSError:
                pass
            if directory == os.path.normpath(point):
                break
            directory = os.path.dirname(directory)
        return None, f"no cgroup under {point} hands the memory controller to its children"
    return None, "no memory cgroup is mounted (neither cgroup v1 'memory' nor cgroup v2)"


class MemoryCgroup:
    """A new cgroup with a memory limit, to run one command in; `remove()` deletes it."""

    def __init__(self, version, parent, limit):
        self.version = version
        self.directory = os.path.join(parent, f"tessera-test-{os.getpid()}-{time.monotonic_ns()}")
        os.mkdir(self.directory)
        try:
            self.write("memory.limit_in_bytes" if version == 1 else "memory.max", str(limit))
            if version == 2 and self.has("memory.swap.max"):
                self.write("memory.swap.max", "0")  # the limit is on memory, not swap
        except OSError:
            self.remove()
            raise

    def has(self, name):
        return os.path.exists(os.path.join(self.directory, name))

    def write(self, name, text):
        with open(os.path.join(self.directory, name), "w") as f:
            f.write(text)

    def read(self, name):
        with open(os.path.join(self.directory, name)) as f:
            return f.read()

    def keyed(self, name):
        pairs = (line.split() for line in self.read(name).splitlines())
        return {key: int(value) for key, value in pairs}

    def command(self, argv):
        """`argv` run by a shell that first moves itself into the cgroup, so no byte is read
        outside it."""
        procs = os.path.join(self.directory, "cgroup.procs")
        return ["sh", "-c", 'echo $$ > "$0" && exec "$@"', procs, *argv]

    def peak(self):
        name = "memory.max_usage_in_bytes" if self.version == 1 else "memory.peak"
        return int(self.read(name)) if self.has(name) else None

    def times_limit_was_reached(self):
        if self.version == 1:
            return int(self.read("memory.failcnt"))
        return self.keyed("memory.events")["max"]

    def oom_events(self):
        """OOM kills in this cgroup, and (v2) allocations that were about to fail; 0 where the
        kernel does not count them (a kill then shows in the exit status)."""
        events = self.keyed("memory.oom_control" if self.version == 1 else "memory.events")
        return events.get("oom_kill", 0) + (events.get("oom", 0) if self.version == 2 else 0)

    def remove(self):
        # The shell exec'd tessera, which has exited: the cgroup is empty and can be removed
        # (its remaining page cache charges move to the parent).
        for attempt in range(50):
            try:
                os.rmdir(self.directory)
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.1)


@pytest.fixture
def memory_cgroup():
    """Makes MemoryCgroup(limit) objects and removes them all afterwards, or skips the test."""
    if os.environ.get("TESSERA_SANITIZED"):
        pytest.skip("sanitizers map shadow memory the limit would count and slow every page "
                    "fault; the release build runs this test")
    version, where = memory_parent()
    if version is None:
        pytest.skip(where)
    made = []

    def make(limit):
        try:
            made.append(MemoryCgroup(version, where, limit))
        except OSError as error:
            pytest.skip(f"cannot make a memory cgroup under {where}: {error.strerror} (needs "
                        "root or a delegated cgroup)")
        return made[-1]

    yield make
    for cgroup in made:
        cgroup.remove()


def drop_from_page_cache(path):
    """Makes the file's pages leave the page cache, so the conversion reads them itself and they
    are charged to its cgroup, not to this test process."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
        os.posix_fadvise(descriptor, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(descriptor)


def write_numbered_npy(path):
    """u32 row-major array whose every element is its own row-major index, written in bands so
    this process never holds the whole file in memory."""
    array = np.lib.format.open_memmap(path, mode="w+", dtype=np.uint32, shape=(ROWS, COLUMNS))
    band = 512
    for row in range(0, ROWS, band):
        array[row:row + band] = np.arange(row * COLUMNS, (row + band) * COLUMNS,
                                          dtype=np.uint32).reshape(band, COLUMNS)
    array.flush()
    del array


def tiled_offset(row, column):
    """Element offset of (row, column) in T(8,128) tiles laid out row-major (docs/design/tiled-layouts.md):
    tiles of 8x128 elements, each stored row-major, in row-major order of tiles."""
    tile = (row // 8) * (COLUMNS // 128) + column // 128
    return tile * 1024 + (row % 8) * 128 + column % 128


def check_tiled(path):
    """Reads a sample of elements through the index formula, corners included."""
    assert os.path.getsize(path) == FILE_BYTES
    tiled = np.memmap(path, dtype=np.uint32, mode="r")
    rng = np.random.default_rng(12)
    rows = np.concatenate([[0, 0, ROWS - 1, ROWS - 1, 7, 8], rng.integers(0, ROWS, 20000)])
    columns = np.concatenate([[0, COLUMNS - 1, 0, COLUMNS - 1, 127, 128],
                              rng.integers(0, COLUMNS, 20000)])
    got = tiled[tiled_offset(rows, columns)]
    expected = (rows * COLUMNS + columns).astype(np.uint32)
    wrong = np.flatnonzero(got != expected)
    assert wrong.size == 0, f"{wrong.size} sampled elements differ, first at {rows[wrong[0]]}," \
                            f"{columns[wrong[0]]}"
    del tiled


def check_numbered_npy(path):
    """Compares the whole array, a band at a time."""
    array = np.load(path, mmap_mode="r")
    assert array.dtype == np.uint32 and array.shape == (ROWS, COLUMNS)
    band = 1024
    for row in range(0, ROWS, band):
        expected = np.arange(row * COLUMNS, (row + band) * COLUMNS, dtype=np.uint32)
        assert np.array_equal(array[row:row + band].ravel(), expected), f"rows from {row} differ"
    del array


def convert_in_cgroup(tessera, make_cgroup, capsys, label, args):
    """Runs `tessera convert ARGS` inside a new cgroup limited to LIMIT_BYTES; checks and reports
    what the kernel counted."""
    cgroup = make_cgroup(LIMIT_BYTES)
    start = time.monotonic()
    result = subprocess.run(cgroup.command([tessera.path, "convert", "--threads", "2", *args]),
                            capture_output=True, text=True, timeout=120)
    seconds = time.monotonic() - start
    peak = cgroup.peak()
    reached = cgroup.times_limit_was_reached()
    ooms = cgroup.oom_events()
    with capsys.disabled():
        print(f"\n[memory cgroup v{cgroup.version}] {label}: {FILE_BYTES >> 20} MiB in "
              f"{seconds:.2f} s under a {LIMIT_BYTES >> 20} MiB limit; peak "
              f"{'unknown' if peak is None else f'{peak / (1 << 20):.1f} MiB'}, limit reached "
              f"{reached} times, {ooms} OOM events")
    assert result.returncode == 0, f"exit {result.returncode}: {result.stderr}"
    assert ooms == 0
    # Charges that may not fail (__GFP_NOFAIL) can pass the limit by a few pages.
    assert peak is None or peak <= LIMIT_BYTES + (1 << 20)
    # The limit was reached: the files did not fit, so pages were reclaimed or written back while
    # the conversion ran (otherwise this test would prove nothing about larger-than-memory files).
    assert reached > 0


def test_conversion_larger_than_its_memory_cgroup(tessera, tmp_path, memory_cgroup, capsys):
    if filesystem_type(tmp_path) in ("tmpfs", "ramfs"):
        pytest.skip(f"{tmp_path} is on a {filesystem_type(tmp_path)}: its files are memory that "
                    "a limit cannot reclaim without swap")
    source, tiled, back = (str(tmp_path / name) for name in ("in.npy", "tiled.bin", "back.npy"))
    write_numbered_npy(source)
    drop_from_page_cache(source)
    convert_in_cgroup(tessera, memory_cgroup, capsys, ".npy -> T(8,128)",
                      ["--to", TILED, source, tiled])
    check_tiled(tiled)
    os.remove(source)  # room on small temporary disks
    drop_from_page_cache(tiled)
    convert_in_cgroup(tessera, memory_cgroup, capsys, "T(8,128) -> .npy",
                      ["--from", TILED, tiled, back])
    check_numbered_npy(back)
