"""Real layout-mismatch errors of the TPU compiler for `tessera decode` fixtures:
compiles Pallas kernels deviceless whose operand Mosaic lays out with tiles while XLA leaves it
untiled (a zero-element operand: XLA does not tile arrays without elements), and saves each
error message under tests/inputs/fixtures/layout_errors/.

    /tmp/jaxenv/bin/python tools/tpu_oracle/pallas_layout_errors.py

Needs jax[tpu] (written with jax 0.10.2, libtpu 0.0.42.1). Pallas asks the attached device for
its TPU generation while lowering; deviceless there is none, so the generation is told here.
"""

from __future__ import annotations

import importlib.metadata
import os
import pathlib

os.environ.setdefault("TPU_ACCELERATOR_TYPE", "v5litepod-4")
os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax._src.pallas.mosaic import tpu_info  # noqa: E402
from jax.experimental import pallas as pl  # noqa: E402
from jax.experimental import topologies  # noqa: E402
from jax.experimental.pallas import tpu as pltpu  # noqa: E402

# (file prefix, topology, device kind Pallas expects)
GENERATIONS = [("v5e", "v5e:2x2", "TPU v5 lite"), ("v6e", "v6e:2x2", "TPU v6 lite")]
# Second operands of a kernel that doubles its first: (name, shape, dtype, memory space).
OPERANDS = [
    ("f32_0x128_vmem", (0, 128), jnp.float32, pltpu.VMEM),
    ("bf16_0x256_vmem", (0, 256), jnp.bfloat16, pltpu.VMEM),
    ("s8_0x128_vmem", (0, 128), jnp.int8, pltpu.VMEM),
    ("f32_4x0x128_vmem", (4, 0, 128), jnp.float32, pltpu.VMEM),
    ("s32_0_smem", (0,), jnp.int32, pltpu.SMEM),
]


def double_first(x_ref, unused_ref, o_ref):
    o_ref[...] = x_ref[...] * 2


def kernel_call(space):
    def call(x, operand):
        return pl.pallas_call(
            double_first, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
            in_specs=[pl.BlockSpec(memory_space=pltpu.VMEM), pl.BlockSpec(memory_space=space)],
            out_specs=pl.BlockSpec(memory_space=pltpu.VMEM))(x, operand)
    return call


def main() -> None:
    root = pathlib.Path(__file__).resolve().parents[2]
    out = root / "tests" / "inputs" / "fixtures" / "layout_errors"
    out.mkdir(parents=True, exist_ok=True)
    versions = f"jax {jax.__version__}, libtpu {importlib.metadata.version('libtpu')}"
    for prefix, topology, kind in GENERATIONS:
        tpu_info.get_device_kind = lambda kind=kind: kind
        jax.clear_caches()
        device = topologies.get_topology_desc(topology_name=topology, platform="tpu").devices[0]
        sharding = jax.sharding.SingleDeviceSharding(device)
        for name, shape, dtype, space in OPERANDS:
            arguments = [jax.ShapeDtypeStruct((8, 128), jnp.float32, sharding=sharding),
                         jax.ShapeDtypeStruct(shape, dtype, sharding=sharding)]
            try:
                jax.jit(kernel_call(space)).lower(*arguments).compile()
            except Exception as error:  # the compiler's own message is the fixture
                message = str(error).strip()
            else:
                print(f"{prefix} {name}: compiled without an error")
                continue
            path = out / f"pallas_{prefix}_{name}.txt"
            path.write_text(f"{message}\n")
            print(f"wrote {path.relative_to(root)}")
    (out / "versions.txt").write_text(
        f"{versions}; written by tools/tpu_oracle/pallas_layout_errors.py\n")


if __name__ == "__main__":
    main()
