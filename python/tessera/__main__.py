"""`python -m tessera` and the `tessera` console script: the tessera CLI binary shipped in the wheel.

The binary is the same program `cmake --install` puts in bin/, so commands, messages and exit
codes (2 with "error: ..." for bad input) are identical; this module only finds and starts it.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

_BINARY = pathlib.Path(__file__).parent / "_bin" / ("tessera.exe" if os.name == "nt" else "tessera")


def main(argv: list[str] | None = None) -> int:
    """Runs the tessera CLI with `argv` (default: this process's arguments); returns its exit code."""
    arguments = sys.argv[1:] if argv is None else argv
    if not _BINARY.is_file():
        print(f"error: the tessera CLI is missing from this installation ({_BINARY})", file=sys.stderr)
        return 2
    if argv is None and os.name == "posix":
        sys.stdout.flush()
        sys.stderr.flush()
        # Replace this process: signals, exit status and terminal behaviour are the binary's own.
        os.execv(_BINARY, ["tessera", *arguments])
    return subprocess.call([str(_BINARY), *arguments])


if __name__ == "__main__":
    sys.exit(main())
