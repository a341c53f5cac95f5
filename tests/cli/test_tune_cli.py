"""`tessera tune` and the planner's flags of `tessera convert`: wisdom written where
XDG_CACHE_HOME says, read back by `convert --plan`, forced variants, and wisdom files that are not
this host's ignored with a warning."""
import json
import os
import re
import subprocess

import numpy as np


def run(tessera, *args, cache=None, check=True):
    env = dict(os.environ)
    if cache is not None:
        env["XDG_CACHE_HOME"] = str(cache)
    result = subprocess.run([tessera.path, *args], capture_output=True, text=True, timeout=120, env=env)
    if check:
        assert result.returncode == 0, result.stderr
    return result


def transpose_input(tmp_path):
    # 4 MiB: large enough for wisdom (outputs the kernels stream).
    path = tmp_path / "in.npy"
    np.save(path, np.zeros((1024, 1024), dtype=np.float32))
    return str(path)


def test_list_names_every_class_and_its_model(tessera):
    out = tessera.run("tune", "--list").stdout
    for kernel_class in ("runs", "runs-tile", "runs-spread", "transpose", "tile-transpose", "tile-gather",
                         "interleave", "deinterleave", "pack-bits"):
        assert re.search(rf"^{kernel_class} \(model: [a-z0-9-]+\)$", out, re.M), out
    assert "tokens" in out


def test_tune_writes_wisdom_under_xdg_cache_home_and_convert_reads_it(tessera, tmp_path):
    cache = tmp_path / "cache"
    result = run(tessera, "tune", "--class", "transpose", "--threads", "1", "--seconds", "4", cache=cache)
    assert result.stdout.startswith("host: "), result.stdout
    assert "[1/1] transpose f32, 1 thread" in result.stderr
    assert re.search(r"^transpose/4B/page/t1 +[a-z0-9-]+ +(the model's|the fastest of \d+)", result.stdout, re.M)
    wisdom = cache / "tessera" / "wisdom.json"
    assert wisdom.exists()
    choices = json.loads(wisdom.read_text())["hosts"][0]["choices"]
    assert list(choices) == ["transpose/4B/page/t1"]
    plan = run(tessera, "convert", "--plan", "--threads", "1", "--to", "f32[1024,1024]{0,1}",
               transpose_input(tmp_path), str(tmp_path / "out.bin"), cache=cache).stdout
    assert re.search(r"variant [a-z0-9-]+ \(measured \d{4}-\d\d-\d\d on this host\)", plan), plan
    # Without it: the model.
    plan = run(tessera, "convert", "--plan", "--threads", "1", "--to", "f32[1024,1024]{0,1}",
               transpose_input(tmp_path), str(tmp_path / "out.bin"), cache=tmp_path / "empty").stdout
    assert "(model)" in plan, plan
    # Export and import.
    exported = run(tessera, "tune", "--export", "-", cache=cache).stdout
    assert json.loads(exported)["tessera_wisdom"] == 1
    (tmp_path / "exported.json").write_text(exported)
    imported = run(tessera, "tune", "--import", str(tmp_path / "exported.json"), cache=tmp_path / "other")
    assert imported.stdout.startswith("imported 1 choice for this host"), imported.stdout
    assert (tmp_path / "other" / "tessera" / "wisdom.json").exists()


def test_variant_is_forced_and_converts_the_same(tessera, tmp_path):
    source = transpose_input(tmp_path)
    data = np.arange(1024 * 1024, dtype=np.float32).reshape(1024, 1024)
    np.save(source, data)
    plan = tessera.run("convert", "--plan", "--variant", "r64-pf0", "--to", "f32[1024,1024]{0,1}", source,
                       str(tmp_path / "out.bin")).stdout
    assert re.search(r"-r64-pf0[a-z0-9-]* \(forced\)", plan), plan
    tessera.run("convert", "--variant", "stream-r16-l2", "--to", "f32[1024,1024]{0,1}", source,
                str(tmp_path / "forced.bin"))
    tessera.run("convert", "--to", "f32[1024,1024]{0,1}", source, str(tmp_path / "model.bin"))
    assert (tmp_path / "forced.bin").read_bytes() == (tmp_path / "model.bin").read_bytes()
    assert np.array_equal(np.fromfile(tmp_path / "model.bin", dtype=np.float32).reshape(1024, 1024), data.T)
    error = tessera.fails("convert", "--variant", "r64-fast", "--to", "f32[1024,1024]{0,1}", source,
                          str(tmp_path / "bad.bin"))
    assert "variant 'r64-fast': an unknown token 'fast'" in error
    assert not (tmp_path / "bad.bin").exists()
    error = tessera.fails("convert", "--planner", "exhaustive", "--to", "f32[1024,1024]{0,1}", source,
                          str(tmp_path / "bad.bin"))
    assert "--planner" in error


def test_a_corrupt_wisdom_file_is_ignored_with_a_warning(tessera, tmp_path):
    bad = tmp_path / "bad\udcff.json"
    bad.write_bytes(b'{"tessera_wisdom": 1, "hosts": [')
    result = run(tessera, "convert", "--plan", "--wisdom", str(bad), "--to", "f32[1024,1024]{0,1}",
                 transpose_input(tmp_path), str(tmp_path / "out.bin"))
    assert "tessera: warning: ignoring wisdom file '" in result.stderr
    assert "bad\\xff.json': not JSON" in result.stderr, result.stderr
    assert "(model)" in result.stdout
    # A foreign one: measured on another host.
    cache = tmp_path / "cache"
    run(tessera, "tune", "--class", "transpose", "--threads", "1", "--seconds", "4", "--quiet", cache=cache)
    wisdom = json.loads((cache / "tessera" / "wisdom.json").read_text())
    wisdom["hosts"][0]["host"]["model"] = 9999
    (tmp_path / "foreign.json").write_text(json.dumps(wisdom))
    result = run(tessera, "convert", "--plan", "--wisdom", str(tmp_path / "foreign.json"), "--to",
                 "f32[1024,1024]{0,1}", transpose_input(tmp_path), str(tmp_path / "out.bin"))
    assert "foreign.json': it holds no choices measured on this host" in result.stderr, result.stderr
    assert "(model)" in result.stdout


def test_planner_measure_times_what_has_no_wisdom(tessera, tmp_path):
    # At most 2 s of timing; the plan then says what it measured (not saved to the wisdom file).
    result = run(tessera, "convert", "--plan", "--threads", "1", "--planner", "measure", "--to",
                 "f32[1024,1024]{0,1}", transpose_input(tmp_path), str(tmp_path / "out.bin"),
                 cache=tmp_path / "cache")
    assert re.search(r"variant [a-z0-9-]+ \(measured \d{4}-\d\d-\d\d on this host\)", result.stdout), result.stdout
    assert not (tmp_path / "cache" / "tessera" / "wisdom.json").exists()
