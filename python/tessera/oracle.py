"""Ask the real TPU compiler what it does: the layout libtpu gives device arrays, compiled
deviceless (ahead of time, no TPU needed) through jax[tpu].

tessera's TPU answers come from a model of the compiler written as data (the library's
tessera/tpu/compiler_model.h). This module is the certainty behind it, for users who have
jax[tpu] installed (``pip install "jax[tpu]==0.10.2"``, about 1.3 GB):

    >>> from tessera import oracle
    >>> oracle.device_layout("f32", (1024, 3), "tpu-v5e")             # doctest: +SKIP
    {'layout': 'f32[1024,3]{0,1:T(4,128)}', 'size_bytes': 16384, 'target': 'tpu-v5e', ...}

The compiler runs in a child process: libtpu aborts the whole process on some inputs (an s2 array
is one), and a crash must not take the caller with it. The same file is the child: run as a
script it answers one JSON request per line on stdin (``{"arrays": [["f32", [1024, 3]]],
"target": "tpu-v5e", "sizes": true}``) with one JSON line on stdout. The tessera CLI's
``--check-with-compiler`` runs it the same way, and tools/tpu_oracle uses it to write the test
fixtures. It imports nothing of tessera, so it runs in any Python that has jax[tpu].
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from typing import Any, Optional, Sequence

# tessera's target names and the deviceless topologies that compile for them (jax 0.10.2).
# generated from the TPU generation table by tools/docs/generate.py: do not edit
TOPOLOGIES = {
    "tpu-v2": "v2:2x2",
    "tpu-v3": "v3:2x2",
    "tpu-v4": "v4:2x2x1",
    "tpu-v5e": "v5e:2x2",
    "tpu-v5p": "v5p:2x2x1",
    "tpu-v6e": "v6e:2x2",
    "tpu-v7x": "tpu7x:2x2x1",
}
ALIASES = {"tpu": "tpu-v5e"}
# end of the generated part

# XLA's element type names and JAX's (NumPy/ml_dtypes) names for them.
JAX_DTYPES = {
    "pred": "bool", "s2": "int2", "s4": "int4", "s8": "int8", "s16": "int16", "s32": "int32",
    "s64": "int64", "u2": "uint2", "u4": "uint4", "u8": "uint8", "u16": "uint16",
    "u32": "uint32", "u64": "uint64", "f16": "float16", "bf16": "bfloat16", "f32": "float32",
    "f64": "float64", "c64": "complex64", "c128": "complex128", "f4e2m1fn": "float4_e2m1fn",
    "f8e5m2": "float8_e5m2", "f8e4m3": "float8_e4m3", "f8e4m3fn": "float8_e4m3fn",
    "f8e4m3b11fnuz": "float8_e4m3b11fnuz", "f8e3m4": "float8_e3m4",
    "f8e5m2fnuz": "float8_e5m2fnuz", "f8e4m3fnuz": "float8_e4m3fnuz",
    "f8e8m0fnu": "float8_e8m0fnu",
}

INSTALL_HINT = 'pip install "jax[tpu]==0.10.2"'


class OracleUnavailable(RuntimeError):
    """jax[tpu] is not installed (or libtpu does not load) in the Python that would run it."""


def target_topology(target: str) -> str:
    name = ALIASES.get(target, target)
    if name not in TOPOLOGIES:
        raise ValueError(f"unknown target '{target}'; known targets: tpu, " + ", ".join(TOPOLOGIES))
    return TOPOLOGIES[name]


def split_top_level(text: str) -> list[str]:
    """'f32[2,3]{1,0}, pred[]{:T(512)}' -> the two shapes (commas inside brackets stay)."""
    parts, depth, current = [], 0, ""
    for ch in text:
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        parts.append(current.strip())
    return parts


def entry_parameter_layouts(hlo_text: str) -> list[str]:
    """The parameters of entry_computation_layout={(...)->...} in a compiled module's text,
    without XLA's /*index=N*/ comments."""
    text = re.sub(r"/\*index=\d+\*/", "", hlo_text)
    match = re.search(r"entry_computation_layout=\{\((.*?)\)->", text)
    if match is None:
        raise RuntimeError("the compiled module has no entry_computation_layout")
    return split_top_level(match.group(1))


def entry_result_layouts(hlo_text: str) -> list[str]:
    """The results of entry_computation_layout={(params)->(results)}: a tuple's elements, or the
    one result."""
    text = re.sub(r"/\*index=\d+\*/", "", hlo_text)
    start = text.index("entry_computation_layout={") + len("entry_computation_layout={")
    depth, end = 1, start
    while depth:
        depth += {"{": 1, "}": -1}.get(text[end], 0)
        end += 1
    results = text[start:end - 1].split(")->", 1)[1]
    if results.startswith("(") and results.endswith(")"):
        results = results[1:-1]
    return split_top_level(results)


# --- the child: runs jax ---------------------------------------------------------------------

class _Compiler:
    def __init__(self) -> None:
        os.environ.setdefault("TPU_ACCELERATOR_TYPE", "v5litepod-4")  # quiets libtpu's start-up
        # Deviceless compiles need no TPU runtime: several processes may load libtpu at once
        # (else its /tmp lockfile lets one in), and JAX's own arrays stay on the CPU.
        os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")
        os.environ.setdefault("JAX_PLATFORMS", "cpu")
        import jax
        jax.config.update("jax_enable_x64", True)  # s64, u64, f64, c128 stay 64-bit
        from jax.experimental import topologies
        self.jax, self.topologies, self.devices = jax, topologies, {}

    def device(self, target: str):
        topology = target_topology(target)
        if topology not in self.devices:
            desc = self.topologies.get_topology_desc(topology_name=topology, platform="tpu")
            self.devices[topology] = desc.devices
        return self.devices[topology]

    def structs(self, arrays, target: str):
        import jax.numpy as jnp
        sharding = self.jax.sharding.SingleDeviceSharding(self.device(target)[0])
        return [self.jax.ShapeDtypeStruct(tuple(dims), jnp.dtype(JAX_DTYPES[dtype]), sharding=sharding)
                for dtype, dims in arrays]

    def compile(self, structs):
        # keep_unused: parameters of a function that ignores them still get their layouts.
        return self.jax.jit(lambda *a: None, keep_unused=True).lower(*structs).compile()

    def rewrites(self, request: dict) -> dict:
        """Compiles x -> (code_1(x), code_2(x), ...) for the codes of a rewrite request: the
        layouts the compiler gives the arrays they make, one per code ("error: ..." for a code
        that does not run). The array is a device array, or keeps `major_to_minor` (JAX's order,
        most major first) when the request gives one, as an array whose layout a program fixed."""
        import jax.numpy as jnp
        from jax.experimental.layout import Format, Layout
        dtype, dims = request["array"]
        if dtype not in JAX_DTYPES:
            return {"error": f"JAX has no element type for '{dtype}'"}
        sharding = self.jax.sharding.SingleDeviceSharding(self.device(request.get("target", "tpu-v5e"))[0])
        if request.get("major_to_minor") is not None:
            sharding = Format(Layout(major_to_minor=tuple(request["major_to_minor"])), sharding)
        struct = self.jax.ShapeDtypeStruct(tuple(dims), jnp.dtype(JAX_DTYPES[dtype]), sharding=sharding)
        codes = list(request["codes"])

        def run(chosen):
            # With no code, the array itself: the input's layout is still answered.
            compiled_codes = chosen or ["x"]
            function = lambda x: tuple(eval(c, {"jnp": jnp, "x": x}) for c in compiled_codes)  # noqa: E731
            text = self.jax.jit(function).lower(struct).compile().as_text()
            return entry_parameter_layouts(text)[0], entry_result_layouts(text)[:len(chosen)]

        try:
            input_layout, layouts = run(codes)
        except Exception:  # one code fails: find it, keep the others' answers
            layouts, input_layout = [], None
            for code in codes:
                try:
                    input_layout, (layout,) = run([code])
                    layouts.append(layout)
                except Exception as error:
                    layouts.append(f"error: {type(error).__name__}: {str(error).splitlines()[0][:200]}")
        return {"input_layout": input_layout, "layouts": layouts}

    def program(self, request: dict) -> dict:
        """Compiles the function `f` that request["source"] defines (with jax, jnp and lax in
        scope) for arguments [[dtype, dims], ...], donating the argument numbers in "donate":
        the optimized module and memory_analysis(), or {"error": ...} with the compiler's
        message (RESOURCE_EXHAUSTED for a program that does not fit).

        The program is traced as JAX traces it by default, with 32-bit integers, unless the
        request says "x64": true. The child keeps jax_enable_x64 on for its arrays, and under it
        a loop's 64-bit index makes libtpu count temporaries that neither the module nor its
        buffer assignment shows (docs/notes/2026-11-27-program-memory.md)."""
        import jax.numpy as jnp
        scope = {"jax": self.jax, "jnp": jnp, "lax": self.jax.lax}
        exec(request["source"], scope)  # noqa: S102 - the caller's own test programs
        with self.jax.enable_x64(bool(request.get("x64", False))):
            structs = self.structs([(t, d) for t, d in request["arguments"]], request.get("target", "tpu-v5e"))
            jitted = self.jax.jit(scope["f"], donate_argnums=tuple(request.get("donate", ())))
            compiled = jitted.lower(*structs).compile()
        m = compiled.memory_analysis()
        keys = ("argument_size_in_bytes", "output_size_in_bytes", "alias_size_in_bytes", "temp_size_in_bytes")
        return {"hlo": compiled.as_text(), "memory_analysis": {k: int(getattr(m, k)) for k in keys}}

    def answer(self, request: dict) -> dict:
        if "codes" in request:
            return self.rewrites(request)
        if "source" in request:
            return self.program(request)
        target = request.get("target", "tpu-v5e")
        arrays = request["arrays"]
        for dtype, _ in arrays:
            if dtype not in JAX_DTYPES:
                return {"error": f"JAX has no element type for '{dtype}'"}
        compiled = self.compile(self.structs(arrays, target))
        out = {"layouts": entry_parameter_layouts(compiled.as_text()),
               "argument_bytes": compiled.memory_analysis().argument_size_in_bytes}
        if request.get("sizes"):
            out["sizes"] = [self.compile(self.structs([a], target)).memory_analysis().argument_size_in_bytes
                            for a in arrays]
        return out


def _serve() -> None:
    try:
        compiler = _Compiler()
        versions = {"jax": compiler.jax.__version__, "libtpu": _libtpu_version()}
    except Exception as error:  # jax missing, or libtpu failing to load
        sys.stdout.write(json.dumps({"unavailable": f"{type(error).__name__}: {error}"}) + "\n")
        sys.stdout.flush()
        return
    sys.stdout.write(json.dumps({"ready": versions}) + "\n")
    sys.stdout.flush()
    for line in sys.stdin:
        try:
            answer = compiler.answer(json.loads(line))
        except Exception as error:  # the compiler's own refusal, e.g. RESOURCE_EXHAUSTED
            answer = {"error": f"{type(error).__name__}: {error}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


def _libtpu_version() -> str:
    try:
        from importlib.metadata import version
        return version("libtpu")
    except Exception:
        return "unknown"


# --- the parent: talks to the child ---------------------------------------------------------

class Oracle:
    """The compiler in a child process, restarted when libtpu aborts. An array whose compile
    aborts is reported as {"error": "the compiler aborted ..."} and the rest still answered."""

    def __init__(self, python: Optional[str] = None) -> None:
        self.python = python or sys.executable
        self.process: Optional[subprocess.Popen] = None
        self.versions: dict = {}

    def _start(self) -> None:
        env = dict(os.environ, TPU_ACCELERATOR_TYPE=os.environ.get("TPU_ACCELERATOR_TYPE", "v5litepod-4"))
        self.process = subprocess.Popen(
            [self.python, os.path.abspath(__file__)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True, env=env)
        first = self.process.stdout.readline()
        if not first:
            raise OracleUnavailable(f"{self.python} could not start the TPU compiler ({INSTALL_HINT})")
        hello = json.loads(first)
        if "unavailable" in hello:
            self.close()
            raise OracleUnavailable(
                f"the TPU compiler is not available in {self.python}: {hello['unavailable']} ({INSTALL_HINT})")
        self.versions = hello["ready"]

    def close(self) -> None:
        if self.process is not None:
            try:
                self.process.stdin.close()
                self.process.wait(timeout=10)
            except Exception:
                self.process.kill()
            self.process = None

    def __enter__(self) -> "Oracle":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _ask(self, request: dict) -> Optional[dict]:
        """The child's answer, or None when it died (then it is restarted on the next ask)."""
        if self.process is None:
            self._start()
        try:
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
            line = self.process.stdout.readline()
        except BrokenPipeError:
            line = ""
        if not line:
            self.process.kill()
            self.process = None
            return None
        return json.loads(line)

    def device_layouts(self, arrays: Sequence[tuple[str, Sequence[int]]], target: str = "tpu-v5e",
                       sizes: bool = False) -> list[dict]:
        """One {"layout": ..., ["size_bytes": ...]} or {"error": ...} per array."""
        arrays = [(str(t), [int(d) for d in dims]) for t, dims in arrays]
        answer = self._ask({"arrays": arrays, "target": target, "sizes": sizes})
        if answer is not None and "error" not in answer:
            out = [{"layout": layout} for layout in answer["layouts"]]
            for entry, size in zip(out, answer.get("sizes", [])):
                entry["size_bytes"] = size
            return out
        if len(arrays) == 1:
            reason = answer["error"] if answer is not None else "the compiler aborted (libtpu crashed)"
            return [{"error": reason}]
        middle = len(arrays) // 2  # find the arrays that fail, keep the answers of the others
        return (self.device_layouts(arrays[:middle], target, sizes)
                + self.device_layouts(arrays[middle:], target, sizes))


    def rewrite_layouts(self, dtype: str, dims: Sequence[int], codes: Sequence[str],
                        target: str = "tpu-v5e",
                        major_to_minor: Optional[Sequence[int]] = None) -> dict:
        """What the compiler makes of each rewrite of an array x: codes are JAX expressions in x
        and jnp ("x.reshape(-1)", "jnp.transpose(x, (1, 0))"), as tessera's fixes print them.
        Returns {"input_layout", "layouts": one per code, "error: ..." when it does not run}.
        major_to_minor (JAX's order) fixes the input's layout; None makes it a device array."""
        request = {"array": [str(dtype), [int(d) for d in dims]], "codes": list(codes),
                   "target": target,
                   "major_to_minor": None if major_to_minor is None else [int(a) for a in major_to_minor]}
        answer = self._ask(request)
        if answer is None:
            # libtpu aborted the program of all codes together (seen for s4[2,8,64,2]{2,3,0,1}
            # with 97 codes, each of which compiles alone): halve it, so that only a code that
            # aborts alone answers with an error.
            if len(codes) <= 1:
                return {"input_layout": None,
                        "layouts": ["error: the compiler aborted (libtpu crashed)"] * len(codes)}
            middle = len(codes) // 2
            first = self.rewrite_layouts(dtype, dims, codes[:middle], target, major_to_minor)
            second = self.rewrite_layouts(dtype, dims, codes[middle:], target, major_to_minor)
            return {"input_layout": first["input_layout"] or second["input_layout"],
                    "layouts": first["layouts"] + second["layouts"]}
        if "error" in answer:
            raise RuntimeError(answer["error"])
        return answer


    def program_memory(self, source: str, arguments: Sequence[tuple[str, Sequence[int]]],
                       target: str = "tpu-v5e", donate: Sequence[int] = (), x64: bool = False) -> dict:
        """Compiles the function `f` defined by `source` for `arguments` ([(dtype, dims), ...]),
        traced with 32-bit integers as JAX does by default (x64=True: with jax_enable_x64):
        {"hlo": the optimized module, "memory_analysis": JAX's four figures}, or {"error": ...}."""
        request = {"source": source, "arguments": [[str(t), [int(d) for d in dims]] for t, dims in arguments],
                   "target": target, "donate": [int(d) for d in donate], "x64": bool(x64)}
        answer = self._ask(request)
        return answer if answer is not None else {"error": "the compiler aborted (libtpu crashed)"}


def available(python: Optional[str] = None) -> bool:
    """True when jax[tpu] runs in `python` (default: this interpreter)."""
    try:
        with Oracle(python) as oracle:
            oracle._start()
        return True
    except OracleUnavailable:
        return False


def device_layout(dtype: str, shape: Sequence[int], target: str = "tpu-v5e",
                  python: Optional[str] = None) -> dict:
    """What the compiler gives one device array: {"layout", "size_bytes" (memory_analysis'
    argument size), "target", "jax", "libtpu"}. Raises OracleUnavailable without jax[tpu], and
    RuntimeError with the compiler's words when it refuses the array."""
    with Oracle(python) as oracle:
        entry = oracle.device_layouts([(dtype, shape)], target, sizes=True)[0]
        if "error" in entry:
            raise RuntimeError(entry["error"])
        return {**entry, "target": ALIASES.get(target, target), **oracle.versions}


if __name__ == "__main__":
    _serve()
