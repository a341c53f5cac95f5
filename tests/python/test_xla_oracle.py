"""XLA as the oracle of the notation: what tessera prints, XLA parses and prints back identically;
what XLA prints, tessera parses to the same layout; what XLA refuses, tessera refuses too.

Needs jax/jaxlib (scripts/test.sh installs them). XLA runs in a subprocess (xla_oracle.py)
because it aborts the process on some bad inputs."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tessera
from strategies import layout_specs

pytest.importorskip("jax", reason="jax/jaxlib are not installed: the XLA oracle cannot run")


class XlaOracle:
    """A long-lived xla_oracle.py process; restarted when XLA aborts it."""

    def __init__(self) -> None:
        self.process = None

    def _start(self) -> None:
        script = os.path.join(os.path.dirname(__file__), "xla_oracle.py")
        env = dict(os.environ, JAX_PLATFORMS="cpu", TF_CPP_MIN_LOG_LEVEL="3")
        self.process = subprocess.Popen(
            [sys.executable, script], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True, env=env,
        )

    def ask(self, request: dict) -> dict:
        if self.process is None or self.process.poll() is not None:
            self._start()
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:  # XLA aborted on this input
            self.process.wait()
            self.process = None
            return {"aborted": True}
        return json.loads(line)

    def parse(self, text: str) -> dict:
        return self.ask({"parse": text})

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.stdin.close()
            self.process.wait(timeout=30)


@pytest.fixture(scope="module")
def xla():
    oracle = XlaOracle()
    yield oracle
    oracle.close()


# A module-scoped fixture under @given: the oracle is stateless, so sharing it is safe.
settings.register_profile("oracle", suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize(
    "text",
    [
        "f32[3,5]{1,0:T(2,2)}",
        "bf16[32,256]{1,0:T(8,128)(2,1)}",
        "bf16[32,256]{1,0:T(8,128)(2,1,1,1)}",
        "s8[8192,8192]{1,0:T(32,128)(4,1)}",
        "pred[8192,8192]{1,0:T(32,128)(32,1)E(1)}",
        "pred[64,64]{0,1:T(8,128)E(32)}",
        "s4[8,8]{1,0:T(8,128)(2,1)E(4)}",
        "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}",
        "f32[3]{0:T(8,128)}",
        "f32[100]{0:L(1024)}",
        "f32[4,4]{1,0:T(2,2)L(16)E(32)S(1)}",
        "s32[2048,1,128,128,4]{4,3,2,1,0:T(8,128)}",
        "f32[]",
        "f32[0,5]{1,0:T(8,128)}",
        "c64[3,3]{0,1}",
        "f8e4m3fn[16,256]{1,0:T(8,128)(4,1)}",
    ],
)
def test_spec_and_tpu_layouts_print_exactly_as_xla(xla, text):
    printed = str(tessera.Layout(text))
    assert printed == text
    assert xla.parse(printed) == {"printed": printed}


@settings(parent=settings.get_profile("oracle"))
@given(layout_specs(max_rank=5, max_dim=300))
def test_random_canonical_strings_round_trip_through_xla(xla, spec):
    printed = str(tessera.Layout(spec.text()))
    assert xla.parse(printed) == {"printed": printed}


@settings(parent=settings.get_profile("oracle"))
@given(layout_specs(max_rank=4, max_dim=50), st.sampled_from([" ", "  ", "\t"]))
def test_strings_xla_prints_parse_in_tessera_to_the_same_layout(xla, spec, space):
    # Written the way people do (spaces), normalised by XLA, read back by tessera.
    spaced = spec.text().replace(",", "," + space).replace("[", "[" + space)
    answer = xla.parse(spaced)
    assert "printed" in answer, answer
    assert tessera.Layout(answer["printed"]) == tessera.Layout(spaced)
    assert str(tessera.Layout(answer["printed"])) == answer["printed"]


NUMPY_NAMES = {
    "float32": np.float32, "bfloat16": ml_dtypes.bfloat16, "int8": np.int8, "bool": np.bool_,
    "int4": ml_dtypes.int4, "float64": np.float64, "uint16": np.uint16,
    "complex64": np.complex64, "float8_e5m2": ml_dtypes.float8_e5m2,
}


@settings(parent=settings.get_profile("oracle"))
@given(
    st.sampled_from(sorted(NUMPY_NAMES)),
    st.lists(st.integers(0, 40), min_size=0, max_size=5).flatmap(
        lambda dims: st.tuples(st.just(dims), st.permutations(range(len(dims))))
    ),
)
def test_shapes_built_by_xla_client_parse_in_tessera(xla, dtype, dims_and_order):
    dims, minor_to_major = dims_and_order
    answer = xla.ask({"array_shape": [dtype, dims, list(minor_to_major)]})
    layout = tessera.Layout(answer["printed"])
    assert layout.dims == tuple(dims)
    assert layout.minor_to_major == tuple(minor_to_major) or not dims
    assert layout.dtype == tessera.xla_element_type(NUMPY_NAMES[dtype])
    assert str(layout) == answer["printed"]


@pytest.mark.parametrize(
    "text",
    [
        "f32[3,5]{1,0:T(-1)}",
        "f32[3,5]{1,0:L(0)}",
        "f32[3,5]{0}",
        "f32[3,5]{1,0:T(2,2)",
        "f32[3,5]{1,0:T(2,2)}}",
        "q32[3,5]",
    ],
)
def test_what_xla_refuses_tessera_refuses_with_a_value_error(xla, text):
    answer = xla.parse(text)
    assert "printed" not in answer, f"XLA accepted {text!r}: {answer}"
    with pytest.raises(tessera.Error):
        tessera.Layout(text)


# XLA's text parser takes these and leaves them to its layout verifier; tessera refuses them at
# once because no buffer can have such a layout (zero tile, repeated dimension, E below the
# type's bits).
@pytest.mark.parametrize("text", ["f32[3,5]{1,0:T(0,2)}", "f32[3,5]{1,1}", "f32[3,5]{1,0:E(16)}"])
def test_tessera_refuses_what_only_xla_verifier_would(text):
    with pytest.raises(tessera.InvalidLayoutError):
        tessera.Layout(text)


def test_the_oracle_survives_an_abort(xla):
    assert xla.parse("f32[4]{0:L(0)}").get("aborted") or "error" in xla.parse("f32[4]{0:L(0)}")
    assert xla.parse("f32[4]{0}") == {"printed": "f32[4]{0}"}
