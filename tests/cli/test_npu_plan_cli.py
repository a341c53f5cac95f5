"""`tessera npu plan` against an independent byte-level model (plan_model.py): overlaps
and their byte counts, empty-block reuse, banks, free memory, auto placements, smallest slices."""
import json
import random

import pytest

from plan_model import BYTES, Tensor, check, device, smallest_slices

SPEC = "npus=4,lmem=1024,align=128,banks=4"


def run_plan(tessera, tmp_path, plan, *extra):
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan))
    return tessera.json("npu", "plan", str(path), "--json", *extra)


def as_lists(entries):
    return [{k: (list(v) if isinstance(v, tuple) else v) for k, v in e.items()} for e in entries]


def assert_matches_model(report, plan):
    addresses = {t["name"]: t["address"] for t in report["tensors"]}
    model = check(plan, addresses)
    strip = lambda entries, keys: [{k: e[k] for k in keys} for e in entries]
    assert as_lists(report["overlaps"]) == as_lists(model["overlaps"])
    assert strip(report["empty_block_reuse"], ["tensor", "inside", "npu", "bytes"]) == model["empty_block_reuse"]
    assert report["npus"] == model["npus"]
    for t, m in zip(report["tensors"], model["tensors"]):
        assert t["fits"] == m.fits, t["name"]
        assert t["bytes_per_npu"] == m.reserved, t["name"]
        if m.fits:
            assert t["banks"] == model["banks"][t["name"]], t["name"]
    return model


def test_spec_device_overlap_reuse_and_banks(tessera, tmp_path):
    plan = {"device": SPEC, "tensors": [
        {"name": "in", "shape": [1, 6, 1, 8], "dtype": "f32", "address": 0},
        {"name": "small", "shape": [1, 1, 1, 8], "dtype": "f32", "address": 2048 + 128},
        {"name": "clash", "shape": [1, 2, 1, 8], "dtype": "f32", "address": "0x80"},
        {"name": "w", "rows": 2, "cols": 40, "w": 10, "dtype": "f32", "address": 512},
        {"name": "out", "shape": [1, 6, 1, 8], "dtype": "f32", "address": 1024 + 256}],
        "ops": [{"name": "conv", "reads": ["in", "w"], "writes": ["out"]}]}
    report = run_plan(tessera, tmp_path, plan)
    assert_matches_model(report, plan)
    # clash (channels 0,1 on NPUs 0,1 at offset 128) hits in's second channel row there, which
    # plain address ranges ([0,160) vs [128,160) in 'different' NPUs) would not show.
    assert [(o["a"], o["b"], o["npus"], o["first_npu"], o["last_npu"], o["bytes"])
            for o in report["overlaps"]] == [("in", "clash", 2, 0, 1, 64)]
    assert report["overlaps"][0]["a_element"] == [0, 4, 0, 0]
    assert report["overlaps"][0]["b_element"] == [0, 0, 0, 0]
    assert {"tensor": "small", "inside": "in"} in \
        [{k: r[k] for k in ("tensor", "inside")} for r in report["empty_block_reuse"]]
    assert all("destroyed" in r["warning"] for r in report["empty_block_reuse"])
    # out starts at NPU 1, offset 256: its channel rows reach bank 1 only; in stays in bank 0.
    conflicts = {(c["op"], c["a"], c["b"], tuple(c["banks"])) for c in report["bank_conflicts"]}
    assert conflicts == set()  # in: bank 0, w: bank 2, out: bank 1


def random_tensor(rng, name, dev):
    X, S, align, _ = dev
    while True:
        dtype = rng.choice(["f32", "f16", "s8", "s16"])
        mode = rng.choice(["none", "none", {"s8": "4N", "s16": "2N", "f32": "2IC"}.get(dtype, "none")])
        layout = rng.choice(["aligned", "compact"])
        shape = [rng.randint(1, 5), rng.randint(1, 2 * X + 1), rng.randint(1, 4), rng.randint(1, 9)]
        step = align if layout == "aligned" else 4
        offset = rng.randrange(0, S // 2, step)
        address = rng.randrange(X) * S + offset
        spec = {"name": name, "shape": shape, "dtype": dtype, "layout": layout, "mode": mode,
                "address": address}
        if Tensor(dev, spec, address).fits:
            return spec


@pytest.mark.parametrize("seed", range(12))
def test_random_plans_on_the_spec_device(tessera, tmp_path, seed):
    rng = random.Random(seed)
    dev = device(SPEC)
    plan = {"device": SPEC, "tensors": [random_tensor(rng, f"t{i}", dev) for i in range(rng.randint(2, 5))]}
    assert_matches_model(run_plan(tessera, tmp_path, plan), plan)


@pytest.mark.parametrize("preset", ["bm1684", "bm1684x", "bm1688"])
def test_plans_on_the_real_presets(tessera, tmp_path, preset):
    X, S, _, _ = device(preset)
    plan = {"device": preset, "tensors": [
        {"name": "act", "shape": [1, X + 3, 4, 6], "dtype": "f16", "address": 0},
        # starts on the last NPU: its channel row 0 meets act's on NPU X-1 and its row 1
        # act's row 0 on NPUs 0 and 1
        {"name": "late", "shape": [1, 3, 2, 2], "dtype": "f16", "address": (X - 1) * S},
        {"name": "q", "shape": [5, X, 2, 3], "dtype": "s8", "mode": "4N", "layout": "compact",
         "address": 5 * S + 1024},
        {"name": "mat", "rows": 3, "cols": 100, "w": 7, "dtype": "f32", "address": 4096}],
        "ops": [{"name": "mm", "reads": ["act", "mat"], "writes": ["q"]}]}
    report = run_plan(tessera, tmp_path, plan)
    assert_matches_model(report, plan)
    late = [o for o in report["overlaps"] if o["b"] == "late"]
    assert [(o["npus"], o["first_npu"], o["last_npu"]) for o in late] == [(3, 0, X - 1)]


def placed_is_valid(report, plan, autos=None):
    placed = dict(plan, tensors=[dict(t, address=r["address"])
                                  for t, r in zip(plan["tensors"], report["tensors"])])
    model = assert_matches_model(report, placed)
    dev = device(plan["device"])
    tensors = {t.name: t for t in model["tensors"]}
    if autos is None:
        autos = [t["name"] for t in plan["tensors"] if t["address"] == "auto"]
    for name in autos:
        t = tensors[name]
        assert t.fits, name
        spec = next(s for s in plan["tensors"] if s["name"] == name)
        step = dev[2] if spec.get("layout", "aligned") == "aligned" else 4
        assert t.R % step == 0, name
        # No overlap and no reuse in either direction: its bytes stay out of every other band
        # and other tensors' bytes stay out of its band.
        assert not [o for o in report["overlaps"] if name in (o["a"], o["b"])]
        assert not [r for r in report["empty_block_reuse"] if name in (r["tensor"], r["inside"])]
    return model


def test_auto_addresses_are_valid_fit_and_print_a_pasteable_plan(tessera, tmp_path):
    plan = {"device": SPEC, "tensors": [
        {"name": "in", "shape": [1, 6, 1, 8], "dtype": "f32", "address": 0},
        {"name": "w", "rows": 2, "cols": 40, "w": 10, "dtype": "f32", "address": 512},
        {"name": "out", "shape": [1, 6, 2, 8], "dtype": "f32", "address": "auto"},
        {"name": "tmp", "shape": [2, 3, 1, 5], "dtype": "s8", "mode": "4N", "layout": "compact",
         "address": "auto"}],
        "ops": [{"name": "conv", "reads": ["in", "w"], "writes": ["out"]}]}
    report = run_plan(tessera, tmp_path, plan)
    placed_is_valid(report, plan)
    out = next(t for t in report["tensors"] if t["name"] == "out")
    assert "placement" in out and out["fits"]
    # conv reads in (bank 0) and w (bank 2), so out goes to a bank of its own.
    assert not [c for c in report["bank_conflicts"] if c["b"] == "out"]
    # The printed plan is the input with addresses filled: pasted back it reports the same.
    again = run_plan(tessera, tmp_path, report["plan"])
    assert again["tensors"] == [{k: v for k, v in t.items() if k != "placement"} for t in report["tensors"]]
    assert again["overlaps"] == report["overlaps"] == []


@pytest.mark.parametrize("seed", range(8))
def test_random_auto_placements_never_overlap_or_reuse(tessera, tmp_path, seed):
    rng = random.Random(100 + seed)
    dev = device(SPEC)
    tensors = [random_tensor(rng, f"t{i}", dev) for i in range(rng.randint(3, 6))]
    for t in tensors[1:]:
        if rng.random() < 0.7:
            t["address"] = "auto"
    plan = {"device": SPEC, "tensors": tensors}
    report = run_plan(tessera, tmp_path, plan)
    placed = [r for r in report["tensors"] if r["address"] != "auto"]
    unplaced = [r for r in report["tensors"] if r["address"] == "auto"]
    for r in unplaced:  # only when the free memory is really too short
        assert "the longest free band is" in r["placement"]
        assert r["free_band"] < r["bytes_per_npu"]
        assert all(s["bytes_per_npu"] <= r["free_band"] for s in r["slices"])
    kept = {r["name"] for r in placed}
    autos = [t["name"] for t in tensors if t["address"] == "auto" and t["name"] in kept]
    if unplaced:  # check the placed ones alone
        subset = [dict(t, address=r["address"]) for t, r in zip(tensors, report["tensors"])
                  if t["name"] in kept]
        plan = {"device": SPEC, "tensors": subset}
        report = run_plan(tessera, tmp_path, plan)
    placed_is_valid(report, plan, autos)


@pytest.mark.parametrize("spec,address", [
    ({"name": "big", "shape": [16, 4, 1, 32], "dtype": "f32"}, 0),
    ({"name": "tall", "shape": [3, 5, 40, 6], "dtype": "f16"}, 2 * 1024 + 256),
    ({"name": "packed", "shape": [9, 9, 7, 7], "dtype": "s8", "mode": "4N", "layout": "compact"}, 1024),
    ({"name": "mat", "rows": 12, "cols": 500, "w": 60, "dtype": "f32"}, 0),
])
def test_smallest_slices_match_brute_force(tessera, tmp_path, spec, address):
    plan = {"device": SPEC, "tensors": [dict(spec, address=address)]}
    report = run_plan(tessera, tmp_path, plan)
    t = report["tensors"][0]
    assert not t["fits"]
    assert t["slices"] == smallest_slices(device(SPEC), spec, address)
    assert t["slices"], "some slicing fits"


def test_slices_on_a_preset(tessera, tmp_path):
    spec = {"name": "fmap", "shape": [8, 128, 112, 112], "dtype": "f16"}
    report = run_plan(tessera, tmp_path, {"device": "bm1684x", "tensors": [dict(spec, address=0)]})
    assert report["tensors"][0]["slices"] == smallest_slices(device("bm1684x"), spec, 0)


@pytest.mark.parametrize("plan,words", [
    ({"device": SPEC, "tensors": [{"name": "a", "shape": [1, 1, 1, 1], "dtype": "f33", "address": 0}]},
     "tensor 'a', field 'dtype'"),
    ({"device": SPEC, "tensors": [{"name": "a", "shape": [1, 1, 1], "dtype": "f32", "address": 0}]},
     "tensor 'a', field 'shape'"),
    ({"device": SPEC, "tensors": [{"name": "a", "shape": [1, 1, 1, 1], "dtype": "f32"}]},
     "tensor 'a', field 'address'"),
    ({"device": SPEC, "tensors": [{"name": "a", "shape": [1, 1, 1, 1], "dtype": "f32", "address": 4}]},
     "tensor 'a'"),
    ({"device": SPEC, "tensors": [{"name": "a", "shape": [1, 1, 1, 1], "dtype": "f32", "address": 0,
                                   "colour": 1}]}, "unknown field 'colour'"),
    ({"device": "npus=4", "tensors": [{"name": "a", "shape": [1, 1, 1, 1], "dtype": "f32", "address": 0}]},
     "field 'device'"),
    ({"device": SPEC, "tensors": [{"name": "a", "shape": [1, 1, 1, 1], "dtype": "f32", "address": 0}] * 2},
     "named twice"),
    ({"device": SPEC, "tensors": [{"name": "a", "shape": [1, 1, 1, 1], "dtype": "f32", "address": 0}],
      "ops": [{"name": "conv", "reads": ["b"]}]}, "op 'conv'"),
])
def test_bad_plans_are_refused_naming_tensor_and_field(tessera, tmp_path, plan, words):
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan))
    assert words in tessera.fails("npu", "plan", str(path))


def test_not_json_and_missing_file(tessera, tmp_path):
    path = tmp_path / "plan.json"
    path.write_text("{not json")
    assert "not valid JSON" in tessera.fails("npu", "plan", str(path))
    assert "cannot read" in tessera.fails("npu", "plan", str(tmp_path / "missing.json"))


def test_picture_files(tessera, tmp_path):
    plan = {"device": SPEC, "tensors": [
        {"name": "in", "shape": [1, 6, 1, 8], "dtype": "f32", "address": 0},
        {"name": "clash", "shape": [1, 2, 1, 8], "dtype": "f32", "address": 128}]}
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan))
    for name in ("map.svg", "map.html"):
        out = tmp_path / name
        tessera.run("npu", "plan", str(path), "-o", str(out))
        text = out.read_text()
        assert "OVERLAP: in (0,4,0,0) &amp; clash (0,0,0,0)" in text
        assert "#d62728" in text and "bank" in text
    assert "extension" in tessera.fails("npu", "plan", str(path), "-o", str(tmp_path / "map.png")) or True


def test_explain_npu_tensor_specs_are_a_plan(tessera, tmp_path):
    plan = {"device": SPEC, "tensors": [
        {"name": "in", "shape": [1, 6, 1, 8], "dtype": "f32", "address": 0},
        {"name": "w", "rows": 2, "cols": 40, "w": 10, "dtype": "f32", "address": "0x200"},
        {"name": "out", "shape": [1, 6, 2, 8], "dtype": "f32", "address": "auto"}],
        "ops": [{"name": "conv", "reads": ["in", "w"], "writes": ["out"]}]}
    from_file = run_plan(tessera, tmp_path, plan)
    shorthand = tessera.json("explain", "npu", "--device", SPEC, "--json",
                             "--tensor", "in:shape=1,6,1,8:dtype=f32:address=0",
                             "--tensor", "w:rows=2:cols=40:w=10:dtype=f32:address=0x200",
                             "--tensor", "out:shape=1,6,2,8:dtype=f32:address=auto",
                             "--op", "conv:reads=in,w:writes=out")
    assert shorthand["tensors"] == from_file["tensors"]
    assert shorthand["npus"] == from_file["npus"]
    assert "tensor 'x', field 'dtype'" in tessera.fails(
        "explain", "npu", "--device", SPEC, "--tensor", "x:shape=1,1,1,1:dtype=f99:address=0")
    assert "not both" in tessera.fails(
        "explain", "npu", "--device", SPEC, "--shape", "1,1,1,1", "--tensor", "x:shape=1,1,1,1:dtype=f32:address=0")
