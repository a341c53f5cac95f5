"""Real TPU HLO modules for `tessera explain FILE --copies`: compiles small JAX
programs that make XLA copy or transpose (a transposed result, a weight used transposed,
reshapes and concatenates across the tiled minor dimension, attention-style einsums) with the
real TPU compiler, deviceless (libtpu compiles for any generation on a CPU-only host),
and saves each optimized module (`compiled.as_text()`) under tests/inputs/fixtures/tpu_hlo/.

    TPU_ACCELERATOR_TYPE=v5litepod-4 /tmp/jaxenv/bin/python tools/tpu_oracle/hlo_programs.py

Needs jax[tpu] (written with jax 0.10.2, libtpu 0.0.42.1). Writes GEN_PROGRAM.hlo per
generation and program, and versions.txt naming the jax and libtpu that compiled them.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import pathlib

os.environ.setdefault("TPU_ACCELERATOR_TYPE", "v5litepod-4")  # quiets libtpu's start-up warnings
# Deviceless compiles touch no TPU: another libtpu process (an oracle run) may hold the lockfile.
os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax.experimental import topologies  # noqa: E402

# Topology names jax 0.10.2 / libtpu 0.0.42.1 accept, by the file prefix used here.
GENERATIONS = {"v2": "v2:2x2", "v4": "v4:2x2x1", "v5e": "v5e:2x2", "v6e": "v6e:2x2",
               "v7x": "tpu7x:2x2x1"}
# The generations each program is compiled for (all would repeat the same copies).
DEFAULT_GENERATIONS = ("v5e", "v6e")

F32, BF16, S8 = jnp.float32, jnp.bfloat16, jnp.int8


def programs():
    """name -> (function, [(shape, dtype) per argument], extra generations)."""
    return {
        # The result is the transpose: XLA copies x into {0,1} and bitcasts.
        "transpose_result": (lambda x: x.T, [((512, 256), F32)], ("v2", "v7x")),
        # bf16 3-D transpose of the two minor dims ((8,128)(2,1) tiles on both sides).
        "bf16_transpose_minor": (lambda x: jnp.transpose(x, (0, 2, 1)),
                                 [((4, 256, 384), BF16)], ("v4",)),
        # A weight stored [out, in] used as w.T in a dot, then the product transposed back.
        "weight_transposed_dot": (lambda x, w: (x @ w.T).T, [((128, 1000), F32),
                                                             ((512, 1000), F32)], ()),
        # A reshape that splits the tiled minor dimension: not a bitcast under T(8,128).
        "reshape_minor_split": (lambda x: (x * 2).reshape(64, 8, 3).sum(axis=2) + x[:, :8],
                                [((64, 24), F32)], ()),
        # A reshape that merges the minor dimension of 3 into the next one.
        "reshape_minor_merge": (lambda x: x.reshape(64, 24) * 2, [((64, 8, 3), F32)], ("v2",)),
        # Concatenating along the tiled minor dimension with widths off the 128 lanes.
        "concatenate_minor": (lambda a, b: jnp.concatenate([a, b], axis=1),
                              [((256, 100), F32), ((256, 28), F32)], ()),
        # Concatenating along the major dimension with row counts off the 8 sublanes.
        "concatenate_major": (lambda a, b: jnp.concatenate([a, b], axis=0) * 3,
                              [((100, 256), F32), ((28, 256), F32)], ()),
        # Attention: scores then values back in [batch, query, head, dim] order.
        "attention_einsum": (lambda q, k, v: jnp.einsum(
            "bhqk,bkhd->bqhd", jax.nn.softmax(jnp.einsum("bqhd,bkhd->bhqk", q, k)), v),
            [((2, 128, 8, 64), BF16)] * 3, ()),
        # Returning an array and its transpose: one of them needs its own layout.
        "transpose_and_original": (lambda x: (x.T + 1, x * 2), [((384, 640), BF16)], ()),
        # A transposed operand of an elementwise op: a transposing copy feeds the fusion.
        "transpose_into_add": (lambda x, y: x.T + y, [((512, 256), F32), ((256, 512), F32)],
                               ("v4",)),
        # Swapping the two major dims of a 3-D array: the copy happens inside a fusion.
        "swap_major_dims": (lambda x: jnp.transpose(x, (1, 0, 2)) * 2, [((64, 128, 256), F32)],
                            ()),
        # Splitting heads out of the minor dimension and moving them major (attention).
        "attention_heads_split": (lambda x: jnp.transpose(x.reshape(2, 128, 8, 64), (0, 2, 1, 3))
                                  * 2, [((2, 128, 512), BF16)], ()),
        # A loop whose body transposes its carry: copies inside a while loop.
        "loop_transposes": (lambda x: jax.lax.fori_loop(0, 3, lambda i, c: (c.T @ c).T * 0.5, x),
                            [((256, 256), F32)], ()),
        # s8 transposed across its (32,128)(4,1) tiles.
        "s8_transpose": (lambda x: x.T, [((256, 512), S8)], ()),
        # Swapping a split dim with the minor one before a matmul: libtpu's copy also converts
        # f32 -> bf16 (default precision) while it transposes.
        "swapaxes_before_matmul": (lambda x, y: jnp.swapaxes(x.reshape(8, 128, 384), 1, 2) @ y,
                                   [((1024, 384), F32), ((128, 256), F32)], ()),
        # A batched matmul contracting against the second operand's major dimension.
        "batched_matmul_transposed": (lambda a, b: jnp.einsum("bij,bkj->bik", a, b),
                                      [((8, 64, 96), F32), ((8, 200, 96), F32)], ()),
    }


def compile_text(function, arguments, topology: str) -> str:
    device = topologies.get_topology_desc(topology_name=topology, platform="tpu").devices[0]
    sharding = jax.sharding.SingleDeviceSharding(device)
    shapes = [jax.ShapeDtypeStruct(shape, dtype, sharding=sharding) for shape, dtype in arguments]
    return jax.jit(function).lower(*shapes).compile().as_text()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    root = pathlib.Path(__file__).resolve().parents[2]
    parser.add_argument("--out", type=pathlib.Path,
                        default=root / "tests" / "inputs" / "fixtures" / "tpu_hlo")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for name, (function, arguments, extra) in programs().items():
        for generation in DEFAULT_GENERATIONS + tuple(extra):
            text = compile_text(function, arguments, GENERATIONS[generation])
            path = args.out / f"{generation}_{name}.hlo"
            path.write_text(text)
            print(f"wrote {path.relative_to(root)} ({len(text)} bytes)")
    versions = (f"jax {jax.__version__}, libtpu {importlib.metadata.version('libtpu')}; "
                f"written by tools/tpu_oracle/hlo_programs.py\n")
    (args.out / "versions.txt").write_text(versions)


if __name__ == "__main__":
    main()
