"""Program memory against the real TPU compiler, live: fresh random JAX programs (a new seed
every run, printed so that a failure replays with TESSERA_ORACLE_SEED) compiled deviceless by
libtpu for several generations; tessera.explain_input's memory_analysis of each optimized module
must equal the compiler's memory_analysis() (arguments, outputs, aliases exactly; temporaries and
peak within 1%). Fixes are proved by recompiling the program with the change applied: the
compiled footprint must fall by what tessera claims, within 1%.

Runs when jax[tpu] is installed; skipped otherwise with the reason. The fixture tests
(tests/inputs/program_memory_test.cpp, tests/cli/test_program_memory_cli.py) cover the same
offline.
"""

from __future__ import annotations

import random
import re

import tessera
from tessera import oracle
# The compiler child process and the printed seed of the array tests, shared.
from test_tpu_compiler_live import _seed, compiler  # noqa: F401

TARGETS = ["tpu-v4", "tpu-v5e", "tpu-v6e", "tpu-v7x"]
EXACT = ("argument_size_in_bytes", "output_size_in_bytes", "alias_size_in_bytes")


def _peak(m: dict) -> int:
    return (m["argument_size_in_bytes"] + m["output_size_in_bytes"] - m["alias_size_in_bytes"]
            + m["temp_size_in_bytes"])


KINDS = ["mlp", "attention", "layer_norm", "embedding", "scan", "masks", "logits"]
# libtpu takes ~10 s of this machine's CPU for a logits program, the others one or two: the
# live tests compile it on one generation only, so that the file stays under a minute.
SLOW = "logits"


def _random_program(rng: random.Random, kinds=KINDS):
    """(name, source defining f, arguments, donated argument numbers) of one of the kinds."""
    kind = rng.choice(kinds)
    if kind == "mlp":
        d, h, b = rng.choice([128, 256, 384]), rng.choice([256, 512, 1000]), rng.choice([8, 64, 100])
        src = ("def f(w1, w2, x):\n"
               "    def loss(w):\n"
               "        return jnp.mean(jnp.tanh(x @ w[0]) @ w[1])\n"
               "    g = jax.grad(loss)((w1, w2))\n"
               "    return w1 - 0.1 * g[0], w2 - 0.1 * g[1]\n")
        return kind, src, [("f32", [d, h]), ("f32", [h, d]), ("f32", [b, d])], (0, 1)
    if kind == "attention":
        hd, s = rng.choice([64, 80, 96, 128]), rng.choice([128, 256, 384])
        src = ("def f(q, k, v):\n"
               "    p = jax.nn.softmax(jnp.einsum('bqhd,bkhd->bhqk', q, k), axis=-1)\n"
               "    return jnp.einsum('bhqk,bkhd->bqhd', p, v)\n")
        return kind, src, [("bf16", [2, s, 4, hd])] * 3, ()
    if kind == "layer_norm":
        n, w = rng.choice([64, 500, 1024]), rng.choice([100, 768, 1000, 4096])
        src = ("def f(x, s):\n"
               "    m = x.mean(-1, keepdims=True)\n"
               "    return (x - m) * lax.rsqrt(((x - m) ** 2).mean(-1, keepdims=True) + 1e-6) * s\n")
        return kind, src, [("f32", [n, w]), ("f32", [w])], ()
    if kind == "embedding":
        v, d = rng.choice([32003, 50257, 1000]), rng.choice([64, 128, 200])
        src = "def f(t, i):\n    return jnp.take(t, i, axis=0).sum(axis=1)\n"
        return kind, src, [("bf16", [v, d]), ("s32", [8, rng.choice([16, 100])])], ()
    if kind == "scan":
        layers, w = rng.randint(2, 6), rng.choice([128, 256])
        src = ("def f(ws, x):\n"
               "    return lax.scan(lambda h, w: (jnp.tanh(h @ w), h.sum()), x, ws)\n")
        return kind, src, [("f32", [layers, w, w]), ("f32", [64, w])], ()
    if kind == "masks":
        n = rng.choice([100, 1000, 4097])
        src = ("def f(s, m, q):\n"
               "    v, i = lax.top_k(jnp.where(m, s, -1e9) + q.astype(jnp.float32), 8)\n"
               "    return v, i, q > 0\n")
        return kind, src, [("f32", [64, n]), ("pred", [64, n]), ("s8", [64, n])], ()
    t, v = rng.choice([2048, 4096, 8192]), rng.choice([32003, 50257])
    src = ("def f(h, u):\n"
           "    z = (h @ u).astype(jnp.float32)\n"
           "    return jax.nn.log_softmax(z, axis=-1), z.argmax(-1)\n")
    return kind, src, [("bf16", [t, 512]), ("bf16", [512, v])], ()


def test_memory_analysis_equals_the_compiler_on_fresh_random_programs(compiler):
    seed = _seed()
    print(f"TESSERA_ORACLE_SEED={seed}")
    rng = random.Random(seed)
    failures = []
    for _ in range(6):
        kind, source, arguments, donate = _random_program(rng)
        for target in rng.sample(TARGETS, 1 if kind == SLOW else 2):
            answer = compiler.program_memory(source, arguments, target, donate)
            assert "error" not in answer, f"seed {seed}: {kind} on {target}: {answer['error']}"
            compiled = answer["memory_analysis"]
            ours = tessera.explain_input(answer["hlo"], target=target)["memory_analysis"]
            label = f"{kind} {arguments} on {target}"
            for key in EXACT:
                if ours[key] != compiled[key]:
                    failures.append(f"{label}: {key} tessera {ours[key]}, compiler {compiled[key]}")
            peak = _peak(compiled)
            if abs(ours["peak_bytes"] - peak) > 0.01 * peak:
                failures.append(f"{label}: peak tessera {ours['peak_bytes']}, compiler {peak}")
    assert not failures, f"seed {seed}:\n" + "\n".join(failures)


def test_column_split_fix_lowers_the_compiled_peak_by_what_it_claims(compiler):
    # An f32[N,3] argument: its 3 columns are padded to 128 lanes (or laid out transposed); the
    # fix keeps them as three f32[N] arrays, and the program that uses them apart never forms
    # the [N,3] array.
    seed = _seed()
    print(f"TESSERA_ORACLE_SEED={seed}")
    rng = random.Random(seed)
    n = rng.choice([100_000, 1_000_003, 3_000_000])
    target = rng.choice(TARGETS)
    before = compiler.program_memory(
        "def f(p):\n    return (p[:, 0] * p[:, 1] + p[:, 2]).sum()\n", [("f32", [n, 3])], target)
    after = compiler.program_memory(
        "def f(a, b, c):\n    return (a * b + c).sum()\n", [("f32", [n])] * 3, target)
    assert "error" not in before and "error" not in after
    ours = tessera.explain_input(before["hlo"], target=target)["memory_analysis"]
    fixes = {f["buffer"]: f for f in ours["fixes"]}
    parameter = next(b for b in ours["live_at_peak"] if b["kind"] == "parameter")
    fix = fixes[parameter["name"]]
    saved = _peak(before["memory_analysis"]) - _peak(after["memory_analysis"])
    assert saved >= 0, f"seed {seed}: the fix raised the compiled peak ({fix['change']})"
    if fix["saves_at_peak_bytes"] > 0:
        assert "columns" in fix["change"], fix
        assert abs(fix["saves_at_peak_bytes"] - saved) <= 0.01 * max(saved, 1), (
            f"seed {seed}, n {n}, {target}: claimed {fix['saves_at_peak_bytes']}, compiled {saved}")


def test_bf16_fix_for_an_unpadded_f32_argument_halves_it(compiler):
    seed = _seed()
    print(f"TESSERA_ORACLE_SEED={seed}")
    rng = random.Random(seed)
    rows, target = rng.choice([1024, 4096, 8192]), rng.choice(TARGETS)
    before = compiler.program_memory("def f(x):\n    return (x * 2).sum(0)\n", [("f32", [rows, 1024])], target)
    after = compiler.program_memory("def f(x):\n    return (x * 2).sum(0)\n", [("bf16", [rows, 1024])], target)
    ours = tessera.explain_input(before["hlo"], target=target)["memory_analysis"]
    fix = ours["fixes"][0]
    saved = (before["memory_analysis"]["argument_size_in_bytes"]
             - after["memory_analysis"]["argument_size_in_bytes"])
    assert "bf16" in fix["change"], fix
    assert abs(fix["saves_at_peak_bytes"] - saved) <= 0.01 * saved, (seed, fix, saved)


def _dims(layout: str) -> tuple[str, list[int]]:
    """'f32[64,8]{0,1:T(8,128)}' -> ('f32', [64, 8])."""
    dtype, dims = re.match(r"(\w+)\[([\d,]*)\]", layout).groups()
    return dtype, [int(d) for d in dims.split(",") if d]


def _with_fix(fix: dict, buffer: dict, source: str, arguments: list, results: list[str]):
    """(source, arguments, outputs changed) of the program with the fix's change made the way
    its words say, or None for a change this test cannot make on its own (sharding, a narrower
    intermediate, rematerialization: those claim no saving)."""
    change, kind = fix["change"], buffer["kind"]
    names = re.match(r"def f\((.*?)\):", source).group(1).split(", ")
    head = source.replace("def f(", "def f_given(", 1)
    prologue, epilogue, arguments = [], [], list(arguments)
    if kind == "parameter":
        i = names.index(buffer["op_name"])
        dtype, dims = arguments[i]
        if change.startswith("bf16 instead of f32"):
            arguments[i] = ("bf16", dims)
        elif change.startswith("x.reshape("):
            arguments[i] = _dims(change.split("(-> ", 1)[1])
            prologue.append(f"    {names[i]} = {names[i]}.reshape({tuple(dims)})")
        elif change.startswith("jnp.packbits(x)"):
            arguments[i] = _dims(change.split("(-> ", 1)[1])
            count = 1
            for d in dims:
                count *= d
            prologue.append(f"    {names[i]} = jnp.unpackbits({names[i]})[:{count}]"
                            f".reshape({tuple(dims)}).astype(bool)")
        else:
            return None
        matched = []
    elif kind == "output":
        matched = [j for j, r in enumerate(results) if _dims(r) == _dims(buffer["layout"])]
        if change.startswith("bf16 instead of f32"):
            code = "x.astype(jnp.bfloat16)"
        elif change.startswith(("x.reshape(", "jnp.packbits(x)")):
            code = change.split(" (-> ", 1)[0]
        elif change.startswith("keep its"):
            code = f"tuple(x[:, c] for c in range({_dims(buffer['layout'])[1][1]}))"
        else:
            return None
        epilogue = [f"    out[{j}] = (lambda x: {code})(out[{j}])" for j in matched]
    else:
        return None
    body = "\n".join(prologue + [f"    out = jax.tree_util.tree_leaves(f_given({', '.join(names)}))"]
                     + epilogue + ["    return jax.tree_util.tree_leaves(out)"])
    return f"{head}\ndef f({', '.join(names)}):\n{body}\n", arguments, len(matched)


def test_every_fix_offered_lowers_the_compiled_peak_by_what_it_claims(compiler):
    """Each fix tessera offers for the buffers alive at the peak, made in the program and
    recompiled: the compiled peak never rises, and falls by the fix's claim within 1% (a fix on
    outputs of one shape is made on all of them, and claims as much for each)."""
    seed = _seed() + 3
    print(f"TESSERA_ORACLE_SEED={seed - 3}")
    rng = random.Random(seed)
    failures, made = [], 0
    for _ in range(2):
        kind, source, arguments, donate = _random_program(rng, [k for k in KINDS if k != SLOW])
        target = rng.choice(TARGETS)
        before = compiler.program_memory(source, arguments, target, donate)
        assert "error" not in before, f"seed {seed - 3}: {kind} on {target}: {before['error']}"
        ours = tessera.explain_input(before["hlo"], target=target)["memory_analysis"]
        live = {b["name"]: b for b in ours["live_at_peak"]}
        results = oracle.entry_result_layouts(before["hlo"])
        for fix in ours["fixes"]:
            buffer = live[fix["buffer"]]
            changed = _with_fix(fix, buffer, source, arguments, results)
            if changed is None:
                assert fix["saves_at_peak_bytes"] == 0, fix
                continue
            fixed_source, fixed_arguments, outputs = changed
            after = compiler.program_memory(fixed_source, fixed_arguments, target, donate)
            if "error" in after and "RESOURCE_EXHAUSTED" not in after["error"]:
                # The change alone is not a program (a scan's carry made bf16 must be bf16 in
                # the body too): the user's code needs more than the fix's words; nothing to
                # compare.
                print(f"not made alone: {fix['change']}: {after['error'].splitlines()[0]}")
                continue
            assert "error" not in after, f"{fixed_source}: {after['error']}"
            made += 1
            saved = _peak(before["memory_analysis"]) - _peak(after["memory_analysis"])
            claimed = fix["saves_at_peak_bytes"] * max(outputs, 1)
            label = f"{kind} {arguments} on {target}: {buffer['kind']} {buffer['layout']}: {fix['change']}"
            if saved < 0:
                failures.append(f"{label}: the compiled peak rose by {-saved}")
            elif abs(saved - claimed) > 0.01 * max(claimed, saved):
                failures.append(f"{label}: claimed {claimed}, compiled {saved}")
        # A change offered without a number must not raise the peak either: donation, the one
        # this test can make alone, on the first argument it is offered for.
        names = re.match(r"def f\((.*?)\):", source).group(1).split(", ")
        offered = [names.index(live[f["buffer"]]["op_name"]) for f in ours["fixes"]
                   if live[f["buffer"]]["kind"] == "parameter" and "donate it" in f["change"]
                   and live[f["buffer"]]["op_name"] in names]
        if offered and offered[0] not in donate:
            after = compiler.program_memory(source, arguments, target, tuple(donate) + (offered[0],))
            assert "error" not in after, after["error"]
            made += 1
            if _peak(after["memory_analysis"]) > _peak(before["memory_analysis"]):
                failures.append(f"{kind} {arguments} on {target}: donating argument {offered[0]} "
                                "raised the compiled peak")
    print(f"{made} fixes recompiled")
    assert not failures, f"seed {seed - 3}:\n" + "\n".join(failures)


def test_a_64_bit_scan_index_costs_temporaries_that_no_module_shows(compiler):
    """The rule the design page states (docs/notes/2026-11-27-program-memory.md): traced with
    jax_enable_x64, a scan that stacks outputs reports temporaries its module does not hold;
    traced as JAX does by default, none, and tessera's peak is the compiler's. Fails when a libtpu
    changes either, so that the page is rewritten."""
    source = "def f(ws, x):\n    return lax.scan(lambda h, w: (jnp.tanh(h @ w), h.sum()), x, ws)\n"
    arguments = [("f32", [2, 128, 128]), ("f32", [64, 128])]
    default = compiler.program_memory(source, arguments, "tpu-v4")
    wide = compiler.program_memory(source, arguments, "tpu-v4", x64=True)
    ours = tessera.explain_input(wide["hlo"], target="tpu-v4")["memory_analysis"]
    assert default["memory_analysis"]["temp_size_in_bytes"] == 0
    peak = _peak(default["memory_analysis"])
    assert abs(tessera.explain_input(default["hlo"], target="tpu-v4")["memory_analysis"]["peak_bytes"]
               - peak) <= 0.01 * peak
    assert wide["memory_analysis"]["temp_size_in_bytes"] == 194_048
    assert ours["temp_size_in_bytes"] < 2_048, ours["temp_size_in_bytes"]
