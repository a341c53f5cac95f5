"""Small programs compiled deviceless for one generation: the layouts of common ops' results,
per-device layouts of arrays sharded over a mesh, and the compiler's own out-of-memory words.
Runs in the oracle's venv (jax[tpu]); each function returns plain JSON data."""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import topologies
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P, SingleDeviceSharding

from oracle_module import TOPOLOGIES, entry_parameter_layouts, split_top_level


def _devices(target: str):
    return topologies.get_topology_desc(topology_name=TOPOLOGIES[target], platform="tpu").devices


def _entry_results(text: str) -> list[str]:
    """The results of entry_computation_layout={(params)->(results)} (a tuple or one shape)."""
    text = re.sub(r"/\*index=\d+\*/", "", text)
    start = text.index("entry_computation_layout={") + len("entry_computation_layout={")
    depth, end = 1, start
    while depth:
        depth += {"{": 1, "}": -1}.get(text[end], 0)
        end += 1
    results = text[start:end - 1].split(")->", 1)[1]
    if results.startswith("(") and results.endswith(")"):
        results = results[1:-1]
    return split_top_level(results)


def _entry_instructions(text: str) -> list[str]:
    """'name = shape opcode(...)' of every instruction of the ENTRY computation."""
    text = re.sub(r"/\*index=\d+\*/", "", text)
    body = text.split("\nENTRY ", 1)[1].split("\n}\n", 1)[0]
    out = []
    for line in body.splitlines()[1:]:
        line = line.strip()
        if " = " in line:
            name, rest = line.split(" = ", 1)
            out.append(f"{name.replace('ROOT ', '').strip()} = {rest.split(', metadata=')[0]}")
    return out


# name -> (function, argument (dtype, dims) list, what it shows)
OPS = {
    "transpose": (lambda x: x.T, [("f32", (128, 384))], "a transposed result is a new device array"),
    "transpose_bf16": (lambda x: x.T, [("bf16", (3, 1024))], "bf16 transpose"),
    "reshape_flatten": (lambda x: x.reshape(-1), [("f32", (1024, 3))], "flatten"),
    "reshape_merge": (lambda x: x.reshape(8, 384), [("bf16", (8, 128, 3))], "merge minor dims"),
    "broadcast": (lambda x: jnp.broadcast_to(x, (1024, 3)), [("f32", (3,))], "broadcast"),
    "dot": (lambda a, b: a @ b, [("bf16", (256, 512)), ("bf16", (512, 3))], "matmul, narrow"),
    "reduce_rows": (lambda x: x.sum(axis=0), [("f32", (1024, 3))], "reduce"),
    "reduce_cols": (lambda x: x.sum(axis=1), [("f32", (1024, 3))], "reduce"),
    "concatenate": (lambda a, b: jnp.concatenate([a, b]), [("f32", (1000, 3)), ("f32", (24, 3))],
                    "concatenate"),
    "convert_bf16": (lambda x: x.astype(jnp.bfloat16), [("f32", (1024, 3))], "convert"),
    "convert_pred": (lambda x: x > 0, [("s32", (64, 256))], "compare to pred"),
    "gather": (lambda x, i: x[i], [("f32", (1000, 64)), ("s32", (7,))], "gather rows"),
}

_DTYPES = {"f32": jnp.float32, "bf16": jnp.bfloat16, "s32": jnp.int32, "s8": jnp.int8, "pred": jnp.bool_}


def op_results(target: str) -> list[dict]:
    sharding = SingleDeviceSharding(_devices(target)[0])
    out = []
    for name, (function, arguments, note) in OPS.items():
        structs = [jax.ShapeDtypeStruct(dims, _DTYPES[t], sharding=sharding) for t, dims in arguments]
        text = jax.jit(function).lower(*structs).compile().as_text()
        out.append({"name": name, "note": note,
                    "arguments": [f"{t}[{','.join(map(str, d))}]" for t, d in arguments],
                    "parameter_layouts": entry_parameter_layouts(text),
                    "result_layouts": _entry_results(text),
                    "entry_instructions": _entry_instructions(text)})
    return out


# (global dtype, dims, PartitionSpec over a mesh ('x', 'y') of the first four devices as 2x2)
SHARDED = [
    ("f32", (1024, 6), ("x", None)),
    ("f32", (1024, 6), (("x", "y"), None)),
    ("f32", (6, 1024), (None, ("x", "y"))),
    ("f32", (8, 1024, 3), ("x", "y", None)),
    ("bf16", (4096, 10), ("x", None)),
    ("bf16", (16, 256), ("x", "y")),
    ("s8", (128, 64), (None, "x")),
    ("f32", (12, 3, 256), (None, None, ("x", "y"))),
    ("pred", (64, 4), ("y", None)),
]


def sharded_arrays(target: str) -> list[dict]:
    devices = np.array(_devices(target)[:4]).reshape(2, 2)
    mesh = Mesh(devices, ("x", "y"))
    out = []
    for dtype, dims, spec in SHARDED:
        sharding = NamedSharding(mesh, P(*spec))
        struct = jax.ShapeDtypeStruct(dims, _DTYPES[dtype], sharding=sharding)
        compiled = jax.jit(lambda x: None, keep_unused=True).lower(struct).compile()
        shard = sharding.shard_shape(dims)
        out.append({"global": f"{dtype}[{','.join(map(str, dims))}]",
                    "spec": [list(s) if isinstance(s, tuple) else s for s in spec],
                    "shard": f"{dtype}[{','.join(map(str, shard))}]",
                    "layout": entry_parameter_layouts(compiled.as_text())[0],
                    "argument_bytes": compiled.memory_analysis().argument_size_in_bytes})
    return out


def oom_messages(target: str) -> list[dict]:
    """The compiler's words for programs that do not fit in the generation's HBM."""
    sharding = SingleDeviceSharding(_devices(target)[0])
    cases = [
        ("argument", lambda x: x + 1, [("f32", (1 << 18, 1 << 18))]),  # 256 GiB in, 256 out
        ("result", lambda x: x @ x.T, [("f32", (1 << 18, 8))]),  # 8 MiB in, 256 GiB out
    ]
    out = []
    for name, function, arguments in cases:
        structs = [jax.ShapeDtypeStruct(dims, _DTYPES[t], sharding=sharding) for t, dims in arguments]
        try:
            jax.jit(function).lower(*structs).compile()
            message = None
        except Exception as error:  # JaxRuntimeError: RESOURCE_EXHAUSTED ...
            message = str(error)
        out.append({"name": name, "arguments": [f"{t}[{','.join(map(str, d))}]" for t, d in arguments],
                    "message": message})
    return out
