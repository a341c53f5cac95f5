"""Drives the real `tessera` binary: the CLI contract (exit codes, formats) is tested end to end."""
import json
import os
import subprocess
import tempfile

import pytest

# Plans read no wisdom the user's `tessera tune` wrote: a cache folder of the tests' own, removed
# when the test process exits.
_CACHE = tempfile.TemporaryDirectory(prefix="tessera-cli-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE.name
os.environ.pop("TESSERA_WISDOM", None)


def pytest_addoption(parser):
    parser.addoption("--tessera", default="build/release/tessera", help="path to the tessera binary")


class Tessera:
    def __init__(self, path):
        self.path = path

    def run(self, *args, check=True):
        # No stdin: `explain` without an argument reads a pipe on it (whatever runs the tests).
        result = subprocess.run([self.path, *args], capture_output=True, text=True, timeout=60,
                                stdin=subprocess.DEVNULL)
        if check and result.returncode != 0:
            raise AssertionError(f"tessera {' '.join(args)} failed ({result.returncode}): {result.stderr}")
        return result

    def lines(self, *args):
        return self.run(*args).stdout.splitlines()

    def json(self, *args):
        return json.loads(self.run(*args).stdout)

    def fails(self, *args):
        """Runs a command that must be refused: exit 2 and a message starting with 'error:'."""
        result = self.run(*args, check=False)
        assert result.returncode == 2, f"expected exit 2 for {args}, got {result.returncode}: {result.stdout}"
        assert result.stderr.startswith("error:"), f"stderr must start with 'error:': {result.stderr!r}"
        return result.stderr


@pytest.fixture(scope="session")
def tessera(request):
    return Tessera(request.config.getoption("--tessera"))
