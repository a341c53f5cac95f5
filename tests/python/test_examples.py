"""The Python examples (examples/python) run as a user would run them, so they never rot."""

import pathlib
import subprocess
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python"


@pytest.mark.parametrize("script", sorted(p.name for p in EXAMPLES.glob("*.py")))
def test_example_runs(script, tmp_path):
    result = subprocess.run([sys.executable, str(EXAMPLES / script), str(tmp_path)],
                            capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip()


def test_checkpoint_example_draws_its_picture(tmp_path):
    subprocess.run([sys.executable, str(EXAMPLES / "checkpoint_layouts.py"), str(tmp_path)],
                   check=True, capture_output=True, timeout=300)
    assert "<svg" in (tmp_path / "f32_3x5_T2x2.svg").read_text()
