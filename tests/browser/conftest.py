"""Fixtures for the browser tests: the tessera binary and a headless Chromium."""
import os
import shutil
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))


def pytest_addoption(parser):
    parser.addoption("--tessera", default="build/release/tessera", help="path to the tessera binary")


@pytest.fixture(scope="session")
def tessera_path(request):
    return request.config.getoption("--tessera")


@pytest.fixture(scope="session")
def chromium():
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.fail("chromium is not installed: run scripts/install_dependencies.sh (Debian package "
                    "'chromium')")
    return path


def draw(tessera_path, out, *args):
    subprocess.run([tessera_path, "draw", *args, "-o", str(out)], check=True, capture_output=True,
                   timeout=60)
