"""Shared setup of the Python package's tests (tests/python)."""

import os
import sys
import tempfile

from hypothesis import settings

sys.path.insert(0, os.path.dirname(__file__))  # reference_layout, strategies

# Plans read no wisdom the user's `tessera tune` wrote: a cache folder of the tests' own, removed
# when the test process exits.
_CACHE = tempfile.TemporaryDirectory(prefix="tessera-python-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE.name
os.environ.pop("TESSERA_WISDOM", None)

# CI runs on 2 shared cores: bounded, deterministic example counts, no per-example deadline.
settings.register_profile("ci", max_examples=150, deadline=None, derandomize=True)
settings.register_profile("dev", max_examples=60, deadline=None)
settings.load_profile(os.environ.get("TESSERA_HYPOTHESIS_PROFILE", "ci"))
