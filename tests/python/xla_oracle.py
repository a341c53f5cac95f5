"""XLA itself, behind a pipe: one JSON request per line on stdin, one JSON answer per line on
stdout. Runs in its own process because XLA aborts (CHECK failure) on some bad layouts, e.g.
T(-1) or L(0); the test side restarts it when that happens.

Requests:
  {"parse": "f32[3,5]{1,0:T(2,2)}"}   -> {"printed": "<XLA's text of that shape>"} or {"error": ...}
  {"array_shape": [dtype, dims, minor_to_major]} -> {"printed": str(xla_client.Shape)}
"""

import json
import sys

import numpy as np
from jax._src.lib import xla_client

try:
    import ml_dtypes  # noqa: F401  (registers bfloat16 & co. with NumPy)
except ImportError:  # pragma: no cover
    pass


def parse(text: str) -> str:
    # XLA's only public shape parser is the HLO text parser: a one-parameter module.
    module = xla_client.hlo.hlo_module_from_text(
        f"HloModule m\n\nENTRY e {{\n  ROOT p = {text} parameter(0)\n}}\n"
    )
    instruction = module.computations()[0].instructions()[0].to_string()
    # "%p = f32[3,5]{1,0:T(2,2)} parameter(0)"
    return instruction.split(" = ", 1)[1].rsplit(" parameter(0)", 1)[0]


def array_shape(dtype: str, dims, minor_to_major) -> str:
    return str(xla_client.Shape.array_shape(np.dtype(dtype), dims, minor_to_major))


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        try:
            if "parse" in request:
                answer = {"printed": parse(request["parse"])}
            else:
                answer = {"printed": array_shape(*request["array_shape"])}
        except Exception as error:  # XLA reports bad text as JaxRuntimeError
            answer = {"error": str(error)}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
