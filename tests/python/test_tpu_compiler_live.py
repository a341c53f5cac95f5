"""tessera against the real TPU compiler, live: fresh random device arrays (a new seed every run,
printed so a failure can be replayed with TESSERA_ORACLE_SEED) compiled deviceless by libtpu for
every generation, compared with tessera.tpu_layout, tessera.explain and Layout.to_jax.

Runs when jax[tpu] is installed (scripts/test.sh installs it); skipped otherwise with the reason.
The fixture tests (tests/tpu/compiler_model_test.cpp) cover the same model offline.
"""

from __future__ import annotations

import math
import os
import pathlib
import random
import sys
import time

import pytest

import tessera
from tessera import oracle

TARGETS = list(oracle.TOPOLOGIES)
# Every element type tessera and JAX share (s1/u1 are not JAX types).
TYPES = sorted(oracle.JAX_DTYPES)


@pytest.fixture(scope="module")
def compiler():
    try:
        with oracle.Oracle() as live:
            live._start()
            yield live
    except oracle.OracleUnavailable as error:
        pytest.skip(str(error))


def _seed() -> int:
    return int(os.environ.get("TESSERA_ORACLE_SEED", time.time_ns() % 2**31))


def _random_dim(rng: random.Random) -> int:
    r = rng.random()
    if r < 0.35:
        return rng.randint(1, 9)
    if r < 0.65:
        return rng.choice([8, 16, 32, 64, 128, 256, 512, 1024]) * rng.randint(1, 3) + rng.choice([-1, 0, 1])
    return rng.randint(1, 3000)


def _random_arrays(rng: random.Random, count: int):
    arrays = []
    for _ in range(count):
        dims = [_random_dim(rng) for _ in range(rng.randint(0, 4))]
        while math.prod(dims) > 2**22:
            dims = [max(1, d // 3) for d in dims]
        arrays.append((rng.choice(TYPES), dims))
    return arrays


def test_tpu_layout_and_explain_equal_the_compiler_on_fresh_random_arrays(compiler):
    seed = _seed()
    print(f"TESSERA_ORACLE_SEED={seed}")
    rng = random.Random(seed)
    arrays = _random_arrays(rng, 60)
    mismatches = []
    for target in TARGETS:
        observed = compiler.device_layouts(arrays, target)
        for (dtype, dims), entry in zip(arrays, observed):
            assert "error" not in entry, f"{dtype}{dims} on {target}: {entry}"
            text = f"{dtype}[{','.join(map(str, dims))}]"
            ours = str(tessera.tpu_layout(dtype, dims, target))
            if ours != entry["layout"]:
                mismatches.append(f"{target}: compiler {entry['layout']}, tessera {ours}")
            report = tessera.explain(text, target=target, max_suggestions=1)
            assert report["layout"] == ours
    assert not mismatches, f"seed {seed}:\n" + "\n".join(mismatches[:20])


def test_size_bytes_equal_memory_analysis(compiler):
    seed = _seed() + 1
    rng = random.Random(seed)
    arrays = _random_arrays(rng, 6)
    for target in ("tpu-v3", "tpu-v5e", "tpu-v7x"):
        for (dtype, dims), entry in zip(arrays, compiler.device_layouts(arrays, target, sizes=True)):
            text = f"{dtype}[{','.join(map(str, dims))}]"
            report = tessera.explain(text, target=target, max_suggestions=1)
            assert report["size_bytes"] == entry["size_bytes"], f"seed {seed}: {text} on {target}"


def test_to_jax_equals_input_formats(compiler):
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    from jax.experimental import topologies

    device = topologies.get_topology_desc(topology_name="v5e:2x2", platform="tpu").devices[0]
    sharding = jax.sharding.SingleDeviceSharding(device)
    for dtype, dims in (("float32", (1024, 3)), ("bfloat16", (3, 300)), ("int8", (64, 1000)), ("bool", ())):
        struct = jax.ShapeDtypeStruct(dims, jnp.dtype(dtype), sharding=sharding)
        compiled = jax.jit(lambda x: None, keep_unused=True).lower(struct).compile()
        expected = compiled.input_formats[0][0].layout
        ours = tessera.tpu_layout(jnp.dtype(dtype), dims, "tpu-v5e").to_jax()
        assert tuple(ours.major_to_minor) == tuple(expected.major_to_minor)
        assert tuple(map(tuple, ours.tiling)) == tuple(map(tuple, expected.tiling))


def test_oracle_says_what_failed_for_an_array_the_compiler_refuses(compiler):
    too_big = compiler.device_layouts([("f32", [1 << 16, 1 << 16])], "tpu-v2")[0]
    assert "RESOURCE_EXHAUSTED" in too_big["error"]


def test_unavailable_compiler_is_named_with_the_install_command(tmp_path):
    missing = tmp_path / "python-without-jax"
    missing.write_text("#!/bin/sh\nexec python3 -S -I \"$@\"\n")
    missing.chmod(0o755)
    with pytest.raises(oracle.OracleUnavailable, match=r'pip install "jax\[tpu\]'):
        with oracle.Oracle(str(missing)) as live:
            live._start()


def _small_array(rng: random.Random):
    """(dtype, dims, major_to_minor or None): the kind of array held out from the fixtures, small dims."""
    dims = [rng.choice([1, 2, 3, 4, 5, 7, 8, 9, 16, 31, 33, 100, 128, 129]) for _ in range(rng.randint(1, 4))]
    while math.prod(dims) > 4096:
        dims = [max(1, d // 2) for d in dims]
    order = None
    if len(dims) >= 2 and rng.random() < 0.3:  # an order the program fixed, as HLO prints it
        order = list(range(len(dims)))
        rng.shuffle(order)
    return rng.choice(["f32", "bf16", "s8", "pred", "s32", "s4"]), dims, order


def _expert_rewrites(dtype, dims, major_to_minor) -> list[str]:
    """The flatten, every merge of neighbouring dims (also in memory order), every transpose but
    the identity and every pad of one dim to 2, 8 or 128, alone or reshaped: the rewrites the
    oracle harness records (tools/tpu_oracle/rewrites.py), in tessera's words."""
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools" / "tpu_oracle"))
    import rewrites
    return rewrites.rewrite_codes(dtype, dims, major_to_minor)


def test_fixes_are_what_the_compiler_makes_of_their_change(compiler):
    """The advice's acceptance, live: tessera's size of each array is the compiler's; every fix's
    change, compiled, makes the layout and bytes the fix claims; and no flatten, merge of
    neighbours, transpose or pad the compiler makes is smaller than the best fix."""
    seed = _seed() + 2
    print(f"TESSERA_ORACLE_SEED={seed - 2}")
    rng = random.Random(seed)
    # Each change is a compile (about half a second): six arrays a run, every fix of each and a
    # sample of the expert's rewrites, keep this test near a minute; fresh arrays every run cover
    # the rest over time.
    for _ in range(6):
        dtype, dims, order = _small_array(rng)
        text = f"{dtype}[{','.join(map(str, dims))}]"
        if order is not None:
            text += "{" + ",".join(map(str, reversed(order))) + "}"
        report = tessera.explain(text, target="tpu-v5e", max_suggestions=1000)
        fixes = report["fixes"]
        expert = _expert_rewrites(dtype, dims, list(reversed(report["minor_to_major"])))
        expert = rng.sample(expert, min(len(expert), 12))
        answer = compiler.rewrite_layouts(dtype, dims, [f["change"] for f in fixes] + expert,
                                          "tpu-v5e", order)
        where = f"seed {seed - 2}: {text}"
        assert answer["input_layout"] == report["layout"], where
        layouts = answer["layouts"]
        for fix, layout in zip(fixes, layouts):
            assert layout == fix["layout"], f"{where}: {fix['change']} makes {layout}"
            assert tessera.Layout.parse(layout).size_bytes == fix["size_bytes"], where
        best = fixes[0]["size_bytes"] if fixes else report["size_bytes"]
        for code, layout in zip(expert, layouts[len(fixes):]):
            assert not layout.startswith("error"), f"{where}: {code}: {layout}"
            assert tessera.Layout.parse(layout).size_bytes >= best, f"{where}: {code} makes {layout}"
