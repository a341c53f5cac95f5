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
    with pytest.raises(tessera.ArgumentError, match="'nope' is not a kernel class"):
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
    with pytest.raises(tessera.ArgumentError, match="unknown token 'fast'"):
        transpose_plan(variant="fast")
    with pytest.raises(tessera.ArgumentError, match="not one of estimate, measure, patient"):
        transpose_plan(planner="exhaustive")


def test_tune_writes_wisdom_that_plans_read(tmp_path):
    wisdom = tmp_path / "wisdom.json"
    seen = []
    choices = tessera.tune(classes=["transpose"], threads=[1], seconds=4, wisdom=str(wisdom),
                           progress=lambda job, jobs, what: seen.append((job, jobs, what)))
    assert seen == [(1, 1, "transpose f32, 1 thread")]
    assert [c["problem"] for c in choices] == ["transpose/4B/page/t1"]
    assert choices[0]["variant"] in tessera.variant_names("transpose")
    assert list(json.loads(wisdom.read_text())["hosts"][0]["choices"]) == ["transpose/4B/page/t1"]
    assert re.search(r"\(measured \d{4}-\d\d-\d\d on this host\)", transpose_plan().describe())
    assert json.loads(tessera.export_wisdom())["tessera_wisdom"] == 1
    assert tessera.use_wisdom_file(str(tmp_path / "missing.json")) == 0
    assert "(model)" in transpose_plan().describe()


def test_a_corrupt_wisdom_file_warns_and_is_ignored(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.warns(RuntimeWarning, match="ignoring wisdom file '.*bad.json': not JSON"):
        assert tessera.use_wisdom_file(str(bad)) == 0
    assert "(model)" in transpose_plan().describe()
