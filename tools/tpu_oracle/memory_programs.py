"""Program-memory fixtures: small JAX programs of the kinds TPU users run (an MLP training step
with donated parameters, attention with head dims 64 and 80, layer norm, an embedding with vocab
32003, a 7x7 conv stem on 3 channels, a lax.scan over stacked layers, int8/pred masks with top-k,
a program sharded over a 2x2 mesh, and a language-model head that does not fit) compiled
deviceless by libtpu for v4, v5e, v6e and v7x with XLA_FLAGS=--xla_dump_to, kept under
tests/fixtures/tpu_memory/GEN_PROGRAM/:

    after_optimizations.txt                       the optimized, scheduled module
    after_optimizations-buffer-assignment.txt     the compiler's buffer assignment
    after_optimizations-memory-usage-report.txt   its allocations per memory space
and memory_analysis.json beside them: every program's compiled.memory_analysis() figures (none
for the program that runs out of HBM: its dump is all there is) with the jax and libtpu versions.

    TPU_ACCELERATOR_TYPE=v5litepod-4 python3 tools/tpu_oracle/memory_programs.py [--only NAME]

Needs jax[tpu] (written with jax 0.10.2, libtpu 0.0.42.1); regenerate.sh runs it too.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import pathlib
import shutil
import sys
import tempfile

_DUMP = tempfile.mkdtemp(prefix="tessera-memory-dump-")
# XLA reads XLA_FLAGS once, when the backend starts: set before jax is imported.
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + f" --xla_dump_to={_DUMP}").strip()
os.environ.setdefault("TPU_ACCELERATOR_TYPE", "v5litepod-4")
os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.experimental import topologies  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
GENERATIONS = {"v4": "v4:2x2x1", "v5e": "v5e:2x2", "v6e": "v6e:2x2", "v7x": "tpu7x:2x2x1"}
F32, BF16, S8, S32, PRED = jnp.float32, jnp.bfloat16, jnp.int8, jnp.int32, jnp.bool_
# Kept under the names XLA gives them after the module's prefix, so that `tessera explain
# DIR/after_optimizations.txt` finds the buffer assignment beside it as in a real dump.
DUMPED = ("after_optimizations.txt", "after_optimizations-buffer-assignment.txt",
          "after_optimizations-memory-usage-report.txt")


def mlp_train_step(params, x, y):
    def loss(p):
        h = jax.nn.relu(x @ p["w1"] + p["b1"])
        return jnp.mean((h @ p["w2"] + p["b2"] - y) ** 2)

    value, grads = jax.value_and_grad(loss)(params)
    return jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, params, grads), value


def attention(q, k, v):
    scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) / jnp.sqrt(q.shape[-1]).astype(q.dtype)
    return jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(scores, axis=-1), v)


def layer_norm(x, scale, bias):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(var + 1e-6) * scale + bias


def embedding(table, ids):
    return jnp.take(table, ids, axis=0).sum(axis=1)


def conv_stem(images, kernel):
    out = jax.lax.conv_general_dilated(images, kernel, (2, 2), "SAME",
                                       dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return jax.nn.relu(out)


def scan_layers(weights, x):
    def layer(h, w):
        h = jnp.tanh(h @ w)
        return h, h.sum()

    return jax.lax.scan(layer, x, weights)


def masks_topk(scores, mask, quantized):
    masked = jnp.where(mask, scores, -1e9) + quantized.astype(F32)
    values, indices = jax.lax.top_k(masked, 8)
    return values, indices, (quantized > 0)


def sharded_matmul(x, w):
    return jnp.tanh(x @ w).sum(axis=0)


def lm_head(hidden, unembed):
    logits = (hidden @ unembed).astype(F32)
    return jax.nn.log_softmax(logits, axis=-1), logits.argmax(axis=-1)


def programs():
    """name -> (function, [(shape, dtype)], donated argument indices, sharded over a 2x2 mesh)."""
    mlp_params = {"w1": ((256, 1024), F32), "b1": ((1024,), F32), "w2": ((1024, 512), F32),
                  "b2": ((512,), F32)}
    return {
        "mlp_train": (mlp_train_step, [mlp_params, ((128, 256), F32), ((128, 512), F32)], (0,),
                      False),
        "attention_d64": (attention, [((2, 256, 4, 64), BF16)] * 3, (), False),
        "attention_d80": (attention, [((2, 256, 4, 80), BF16)] * 3, (), False),
        "layer_norm": (layer_norm, [((512, 1000), F32), ((1000,), F32), ((1000,), F32)], (),
                       False),
        "embedding": (embedding, [((32003, 128), BF16), ((16, 64), S32)], (), False),
        "conv_stem": (conv_stem, [((8, 112, 112, 3), F32), ((7, 7, 3, 64), F32)], (), False),
        "scan_layers": (scan_layers, [((6, 256, 256), F32), ((64, 256), F32)], (), False),
        "masks_topk": (masks_topk, [((64, 1000), F32), ((64, 1000), PRED), ((64, 1000), S8)],
                       (), False),
        "sharded_2x2": (sharded_matmul, [((512, 1024), BF16), ((1024, 768), BF16)], (), True),
        # 65,536 tokens x vocab 32,003: an 8.4 GB f32 logits output and a 4.2 GB bf16 temporary,
        # under every generation's HBM here.
        "lm_head": (lm_head, [((65536, 1024), BF16), ((1024, 32003), BF16)], (), False),
        # 524,288 tokens: 67 GB of f32 logits and 34 GB of bf16 ones, more than any of these
        # generations' HBM holds (tpu7x: 94.75G): RESOURCE_EXHAUSTED, and the dump stays.
        "lm_head_oom": (lm_head, [((524288, 1024), BF16), ((1024, 32003), BF16)], (), False),
    }


def _struct(spec, sharding):
    if isinstance(spec, dict):
        return {k: _struct(v, sharding) for k, v in spec.items()}
    shape, dtype = spec
    return jax.ShapeDtypeStruct(shape, dtype, sharding=sharding)


def compile_program(function, specs, donated, sharded, topology):
    """(memory_analysis dict or None, error text or None)."""
    devices = topologies.get_topology_desc(topology_name=topology, platform="tpu").devices
    if sharded:
        mesh = Mesh(np.array(devices[:4]).reshape(2, 2), ("x", "y"))
        shardings = [NamedSharding(mesh, PartitionSpec("x", "y")),
                     NamedSharding(mesh, PartitionSpec("y", None))]
    else:
        shardings = [jax.sharding.SingleDeviceSharding(devices[0])] * len(specs)
    args = [_struct(s, sh) for s, sh in zip(specs, shardings)]
    jitted = jax.jit(function, donate_argnums=donated)
    try:
        compiled = jitted.lower(*args).compile()
    except Exception as error:  # RESOURCE_EXHAUSTED: the dump is written before the error
        return None, str(error).splitlines()[0][:400]
    m = compiled.memory_analysis()
    keys = ("argument_size_in_bytes", "output_size_in_bytes", "alias_size_in_bytes",
            "temp_size_in_bytes", "generated_code_size_in_bytes")
    return {k: int(getattr(m, k)) for k in keys}, None


def take_dump(before, out_dir):
    """Moves the three files of the newest jit module dumped since `before` into out_dir."""
    new = sorted(set(os.listdir(_DUMP)) - before)
    modules = sorted({f.split(".")[0] for f in new if f.endswith("after_optimizations.txt")})
    if not modules:
        raise RuntimeError(f"no module dumped: {new[:5]}")
    module = modules[-1]
    out_dir.mkdir(parents=True, exist_ok=True)
    for suffix in DUMPED:
        matches = [f for f in new if f.startswith(module + ".") and f.endswith("." + suffix)]
        if not matches:
            raise RuntimeError(f"{module}: no *{suffix} in the dump")
        text = pathlib.Path(_DUMP, matches[0]).read_text()
        # Source files relative to the repository: the fixtures do not name this machine.
        (out_dir / suffix).write_text(text.replace(f"{ROOT}/", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    root = pathlib.Path(__file__).resolve().parents[2]
    parser.add_argument("--out", type=pathlib.Path,
                        default=root / "tests" / "fixtures" / "tpu_memory")
    parser.add_argument("--only", action="append", help="program name (repeatable)")
    parser.add_argument("--generation", action="append", choices=sorted(GENERATIONS))
    args = parser.parse_args()
    figures_path = args.out / "memory_analysis.json"
    figures = json.loads(figures_path.read_text()) if figures_path.exists() else {}
    figures.setdefault("programs", {})
    for name, (function, specs, donated, sharded) in programs().items():
        if args.only and name not in args.only:
            continue
        for generation in args.generation or GENERATIONS:
            before = set(os.listdir(_DUMP))
            analysis, error = compile_program(function, specs, donated, sharded,
                                              GENERATIONS[generation])
            key = f"{generation}_{name}"
            take_dump(before, args.out / key)
            figures["programs"][key] = ({"memory_analysis": analysis} if analysis else
                                        {"error": error})
            print(f"{key}: {analysis or error}", file=sys.stderr)
    figures["versions"] = {"jax": jax.__version__, "libtpu": importlib.metadata.version("libtpu"),
                           "script": "tools/tpu_oracle/memory_programs.py"}
    figures["programs"] = dict(sorted(figures["programs"].items()))
    args.out.mkdir(parents=True, exist_ok=True)
    figures_path.write_text(json.dumps(figures, indent=1) + "\n")
    shutil.rmtree(_DUMP, ignore_errors=True)


if __name__ == "__main__":
    main()
