"""The relayout planner from Python: tessera.tune() writes wisdom that Relayout plans
then say they use, forced variants write the same bytes, and a corrupt wisdom file is a warning."""

import json
import re

import numpy as np
import pytest

import tessera


def transpose_plan(**options):
    source = tessera.Layout("f32[1024,1024]{1,0}").index_map
    destination = tessera.Layout("f32[1024,1024]{0,1}").index_map
    return tessera.Relayout(source, destination, threads=1, **options)


def test_classes_and_their_variants_are_listed():
    assert "transpose" in tessera.kernel_classes()
    names = tessera.variant_names("transpose")
    assert len(names) > 1 and names[0].startswith("staged-")
    with pytest.raises(tessera.InvalidLayoutError, match="'nope' is not a kernel class"):
        tessera.variant_names("nope")


def test_a_forced_variant_writes_the_same_bytes_and_says_so():
    source = np.arange(1024 * 1024, dtype=np.float32).view(np.uint8)
    model = np.zeros(4 << 20, np.uint8)
    forced = np.zeros(4 << 20, np.uint8)
    transpose_plan().execute(source, model)
    plan = transpose_plan(variant="stream-r16-l2")
    plan.execute(source, forced)
    assert np.array_equal(model, forced)
    assert "(forced)" in plan.describe()
    with pytest.raises(tessera.InvalidLayoutError, match="unknown token 'fast'"):
        transpose_plan(variant="fast")
    with pytest.raises(tessera.InvalidLayoutError, match="not one of estimate, measure, patient"):
        transpose_plan(planner="exhaustive")


def tiling_plan(**options):
    # Rows of 16 KiB: runs-tile, as the tuner's proxy (runs whose walk has an alternative).
    source = tessera.Layout("f32[256,4096]{1,0}").index_map
    destination = tessera.Layout("f32[256,4096]{1,0:T(8,128)}").index_map
    return tessera.Relayout(source, destination, threads=1, **options)


def test_tune_writes_wisdom_that_plans_read(tmp_path):
    # The class with the fewest candidates and a cap far above what it takes: what is asserted
    # does not depend on the machine's speed.
    wisdom = tmp_path / "wisdom.json"
    seen = []
    choices = tessera.tune(classes=["runs-tile"], threads=[1], seconds=600, wisdom=str(wisdom),
                           progress=lambda job, jobs, what: seen.append((job, jobs, what)))
    assert seen[:2] == [(1, 2, "runs-tile f32, 1 thread, from memory"), (2, 2, "runs-tile f32, 1 thread, in cache")]
    # Keys: class, element size, the row pitch the proxy read as, size class, threads.
    assert [re.sub(r"/[a-z]+/(memory|cache)/", r"/\1/", c["problem"]) for c in choices] == [
        "runs-tile/4B/memory/t1", "runs-tile/4B/cache/t1"]
    for c in choices:
        assert c["variant"] == c["fastest"] or c["why"].startswith("the model's"), c
    assert sorted(json.loads(wisdom.read_text())["hosts"][0]["choices"]) == sorted(c["problem"] for c in choices)
    assert f"variant {choices[1]['variant']} (measured " in tiling_plan().describe()
    assert json.loads(tessera.export_wisdom())["tessera_wisdom"] == 1
    assert tessera.use_wisdom_file(str(tmp_path / "missing.json")) == 0
    assert "(model)" in tiling_plan().describe()


def test_a_corrupt_wisdom_file_warns_and_is_ignored(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.warns(RuntimeWarning, match="ignoring wisdom file '.*bad.json': it is not valid JSON"):
        assert tessera.use_wisdom_file(str(bad)) == 0
    assert "(model)" in transpose_plan().describe()
