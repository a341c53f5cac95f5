"""What `pip install .` gives: one version everywhere, the `tessera` command and `python -m tessera`
running the CLI binary shipped in the wheel, and no run-time need for fmt (linked header-only)."""

import pathlib
import re
import shutil
import subprocess
import sys

import pytest

import tessera

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE = pathlib.Path(tessera.__file__).parent
# The console script sits beside the interpreter of the environment the package is installed in.
CONSOLE_SCRIPT = pathlib.Path(sys.executable).parent / "tessera"


def test_version_is_the_cmake_project_version():
    written = re.search(r"project\(tessera VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text())
    assert tessera.__version__ == written.group(1)
    from importlib.metadata import version

    assert version("tessera") == tessera.__version__


@pytest.mark.skipif(not CONSOLE_SCRIPT.exists(), reason="tessera not pip-installed in this environment")
def test_console_script_and_module_print_the_package_version():
    expected = f"tessera {tessera.__version__}"
    for command in ([str(CONSOLE_SCRIPT), "--version"], [sys.executable, "-m", "tessera", "--version"]):
        result = subprocess.run(command, capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == expected


def test_module_keeps_the_cli_exit_status_and_message():
    result = subprocess.run([sys.executable, "-m", "tessera", "info", "f32[3,5]{1,0:T(0,2)}"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.startswith("error:")


@pytest.mark.skipif(not shutil.which("readelf"), reason="needs readelf (binutils)")
def test_shipped_binaries_need_no_fmt_library():
    binaries = [PACKAGE / "_bin" / "tessera", *PACKAGE.glob("_tessera*.so")]
    assert all(b.exists() for b in binaries), binaries
    for binary in binaries:
        dynamic = subprocess.run(["readelf", "-d", str(binary)], capture_output=True, text=True).stdout
        needed = re.findall(r"\(NEEDED\).*\[(.*)\]", dynamic)
        assert not [n for n in needed if "fmt" in n or "tessera" in n], (binary, needed)
