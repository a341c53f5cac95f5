"""The documentation's tests (tests/docs): its examples run, its generated pages are up to date,
its JSON outputs match their schemas, and no file points outside the repository. Run by
scripts/test.sh with the installed wheel's Python; TESSERA_CLI names the CLI to run."""
import json
import os
import pathlib
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools" / "docs"))


@pytest.fixture(scope="session")
def tessera_cli() -> str:
    path = pathlib.Path(os.environ.get("TESSERA_CLI", REPO / "build" / "release" / "tessera"))
    if not path.is_file():
        pytest.fail(f"no tessera CLI at {path}: build it or set TESSERA_CLI")
    return str(path)


@pytest.fixture(scope="session")
def json_validator():
    """(command line, stdout) -> None; raises when the output does not match its schema."""
    import json_outputs

    return json_outputs.validate_command_output
