"""Inputs from Python: explain_input, Layout.from_jax/to_jax, explain(jax_array), shards=."""
import pathlib

import numpy as np
import pytest

import tessera

FIXTURES = pathlib.Path(__file__).resolve().parent.parent / "inputs" / "fixtures"
REPR = "Layout(major_to_minor=(0, 1), tiling=((8, 128), (2, 1)), sub_byte_element_size_in_bits=0)"


def test_explain_input_matches_the_report():
    out = tessera.explain_input((FIXTURES / "jax_7502_padding.txt").read_text())
    (array,) = out["arrays"]
    assert array["name"] == "iota.1" and array["padding_bytes"] == 31 * 2**30
    assert array["disagreements"] == []


def test_from_jax_repr_and_format():
    layout = tessera.Layout.from_jax(REPR, (8, 256), "bf16")
    assert str(layout) == "bf16[8,256]{1,0:T(8,128)(2,1)}"
    old = "Format(layout=DeviceLocalLayout(major_to_minor=(1, 0), _tiling=((8, 128),)), sharding=x)"
    assert str(tessera.Layout.from_jax(old, (8, 256), np.float32)) == "f32[8,256]{0,1:T(8,128)}"
    with pytest.raises(tessera.Error, match="major_to_minor"):
        tessera.Layout.from_jax("Layout(major_to_minor=(0,))", (8, 256), "f32")


def test_to_jax_round_trip():
    layout = tessera.Layout.parse("bf16[8,256]{0,1:T(8,128)(2,1)}")
    jax_layout = layout.to_jax()
    assert "major_to_minor=(1, 0)" in repr(jax_layout)
    assert str(tessera.Layout.from_jax(jax_layout, (8, 256), "bf16")) == str(layout)


def test_explain_shards():
    out = tessera.explain("f32[1001,256]", target="tpu", shards=(8, 1))
    assert out["layout"] == "f32[126,256]{1,0:T(8,128)}" and out["size_bytes"] == 128 * 256 * 4
    with pytest.raises(tessera.Error):
        tessera.explain("f32[1001,256]", shards=(8,))


def test_explain_jax_array_reads_its_format():
    jnp = pytest.importorskip("jax.numpy")
    x = jnp.zeros((8, 256), jnp.bfloat16)
    out = tessera.explain(x, target="tpu")
    assert out["layout"] == "bf16[8,256]{1,0:T(8,128)(2,1)}"


def test_explain_fixes_per_shard_and_grouped_alternatives():
    # Today's compiler: each shard flattened takes 296 KiB, less than the pad's 300 KiB.
    out = tessera.explain("f32[1997,100,3]", target="tpu", shards=(8, 1, 1))
    assert out["shard_dims"] == [250, 100, 3] and out["shards"] == [8, 1, 1]
    best = out["fixes"][0]
    assert best["kind"] == "reshape" and best["size_bytes"] == 296 * 1024
    assert best["change"] == "x.reshape(-1)  # per shard, e.g. inside shard_map"
    # The 2020 compilers kept the written order: there the pad wins.
    old = tessera.explain("f32[1997,100,3]", target="tpu", shards=(8, 1, 1), xla_era="2020")
    pad = old["fixes"][0]
    assert pad["kind"] == "pad" and pad["size_bytes"] == 300 * 1024
    assert pad["change"].startswith("jnp.pad(x, ((0, 51), (0, 0), (0, 0)))")
    assert "per shard" in pad["change"]
    grouped = tessera.explain("s32[2048,1,128,128,4]{4,3,2,1,0}", target="tpu")["suggestions"]
    keys = [(s["kind"], s["size_bytes"]) for s in grouped]
    assert len(keys) == len(set(keys)) and len(grouped[0]["alternatives"]) > 10
    # The same fixes as `tessera explain PATH --shards` (one library).
    report = tessera.explain_input("Shape: f32[1997,100,3]\n", shards=[8, 1, 1])
    assert report["arrays"][0]["suggestions"][0]["change"] == best["change"]
    report = tessera.explain_input("Shape: f32[1997,100,3]\n", shards=[8, 1, 1], xla_era="2020")
    assert report["arrays"][0]["suggestions"][0]["change"] == pad["change"]


def test_explain_input_reads_what_users_paste():
    # A report as a Python repr on the last line of a traceback.
    traceback = (FIXTURES / "traceback_repr_oom.txt").read_text()
    out = tessera.explain_input(traceback)
    assert out["format"] == "oom_report" and [a["name"] for a in out["arrays"]] == ["iota.1"]
    assert out["out_of_memory"][0]["required"] == "32.55G"
    # Today's one-line message names no array, and says what it counts.
    today = tessera.explain_input((FIXTURES / "libtpu_oom_traceback.txt").read_text())
    assert today["arrays"] == [] and today["out_of_memory"][0]["what"] == "HLO temporaries"
    assert today["out_of_memory"][0]["available"] == "15.75G"
    # A report's shapes are already per device.
    with pytest.raises(tessera.Error, match="already one device's"):
        tessera.explain_input(traceback, shards=[8, 1, 1])


def test_hlo_totals_count_each_buffer_once():
    out = tessera.explain_input((FIXTURES / "libtpu_oom_after_optimizations.hlo").read_text())
    counted = [a for a in out["arrays"] if a["counted"]]
    assert out["buffers"] == len(counted) == 4
    assert out["total_size_bytes"] == sum(a["size_bytes"] for a in counted)
    assert all(a["same_buffer"] for a in out["arrays"] if not a["counted"])
