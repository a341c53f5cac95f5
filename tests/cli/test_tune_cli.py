"""`tessera tune` and the planner's flags of `tessera convert`: wisdom written where
XDG_CACHE_HOME says, read back by `convert --plan`, forced variants, and wisdom files that are not
this host's ignored with a warning. What these tests assert does not depend on how fast the machine
is (they run under ASan on busy 2-core machines): they measure the class with the fewest
candidates (runs-tile) and give it a cap far above what it takes (the schedule ends when it is
done), and assert what was measured, whatever it was."""
import json
import os
import pathlib
import re
import subprocess
import sys

import numpy as np


def run(tessera, *args, cache=None, check=True):
    env = dict(os.environ)
    if cache is not None:
        env["XDG_CACHE_HOME"] = str(cache)
    result = subprocess.run([tessera.path, *args], capture_output=True, text=True, timeout=120, env=env)
    if check:
        assert result.returncode == 0, result.stderr
    return result


# A cap, not a duration: tune and the planner stop when their schedule is done.
GENEROUS = "600"


def tiling_input(tmp_path):
    # 4 MiB of row-major f32 in rows of 16 KiB, to be tiled (kernel class runs-tile: its runs have
    # a walk to choose, as the tuner's proxy has).
    path = tmp_path / "tiling.npy"
    np.save(path, np.zeros((256, 4096), dtype=np.float32))
    return str(path)


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
    result = run(tessera, "tune", "--class", "runs-tile", "--threads", "1", "--seconds", GENEROUS, cache=cache)
    assert result.stdout.startswith("host: "), result.stdout
    assert "[1/2] runs-tile f32, 1 thread, from memory" in result.stderr
    assert "[2/2] runs-tile f32, 1 thread, in cache" in result.stderr
    # Keys: class, element size, the row pitch the proxy read as, size class, threads.
    for size in ("memory", "cache"):
        assert re.search(rf"^runs-tile/4B/[a-z]+/{size}/t1 +[a-z0-9-]+ +(the model's|the fastest of \d+)",
                         result.stdout, re.M), result.stdout
    wisdom = cache / "tessera" / "wisdom.json"
    assert wisdom.exists()
    choices = json.loads(wisdom.read_text())["hosts"][0]["choices"]
    assert sorted(key.split("/")[3] for key in choices) == ["cache", "memory"], choices
    plan = run(tessera, "convert", "--plan", "--threads", "1", "--to", "f32[256,4096]{1,0:T(8,128)}",
               tiling_input(tmp_path), str(tmp_path / "out.bin"), cache=cache).stdout
    # 4 MiB: the cache class's choice, whatever it was.
    chosen = next(c["variant"] for key, c in choices.items() if "/cache/" in key)
    assert re.search(rf"variant {chosen} \(measured \d{{4}}-\d\d-\d\d on this host( for [a-z0-9/-]+/cache/t1)?\)",
                     plan), plan
    # Without it: the model.
    plan = run(tessera, "convert", "--plan", "--threads", "1", "--to", "f32[256,4096]{1,0:T(8,128)}",
               tiling_input(tmp_path), str(tmp_path / "out.bin"), cache=tmp_path / "empty").stdout
    assert "(model)" in plan, plan
    # Export and import.
    exported = run(tessera, "tune", "--export", "-", cache=cache).stdout
    assert json.loads(exported)["tessera_wisdom"] == 1
    (tmp_path / "exported.json").write_text(exported)
    imported = run(tessera, "tune", "--import", str(tmp_path / "exported.json"), cache=tmp_path / "other")
    assert imported.stdout.startswith("imported 2 choices for this host"), imported.stdout
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
    assert ("\n" + result.stderr).count("\nwarning: ignoring wisdom file '") == 1, result.stderr
    assert "bad\\xff.json': it is not valid JSON" in result.stderr, result.stderr
    assert "(model)" in result.stdout
    # A foreign one: measured on another host.
    cache = tmp_path / "cache"
    run(tessera, "tune", "--class", "runs-tile", "--threads", "1", "--seconds", GENEROUS, "--quiet", cache=cache)
    wisdom = json.loads((cache / "tessera" / "wisdom.json").read_text())
    wisdom["hosts"][0]["host"]["model"] = 9999
    (tmp_path / "foreign.json").write_text(json.dumps(wisdom))
    result = run(tessera, "convert", "--plan", "--wisdom", str(tmp_path / "foreign.json"), "--to",
                 "f32[1024,1024]{0,1}", transpose_input(tmp_path), str(tmp_path / "out.bin"))
    assert "foreign.json': it holds no choices measured on this host" in result.stderr, result.stderr
    assert "(model)" in result.stdout


def test_planner_measure_times_what_has_no_wisdom(tessera, tmp_path):
    # Its own budget, far above what measuring the class takes; the plan then says what it
    # measured (not saved to the wisdom file).
    result = run(tessera, "convert", "--plan", "--threads", "1", "--planner", "measure", "--planner-seconds",
                 GENEROUS, "--to", "f32[256,4096]{1,0:T(8,128)}", tiling_input(tmp_path),
                 str(tmp_path / "out.bin"), cache=tmp_path / "cache")
    assert re.search(r"variant [a-z0-9-]+ \(measured \d{4}-\d\d-\d\d on this host\)", result.stdout), result.stdout
    assert not (tmp_path / "cache" / "tessera" / "wisdom.json").exists()


def test_unknown_planner_names_are_refused_alike(tessera, tmp_path):
    error = tessera.fails("tune", "--class", "transposes", "--threads", "1")
    assert "'transposes' is not a kernel class" in error
    error = tessera.fails("convert", "--variant", "g128", "--to", "f32[1024,1024]{0,1}", transpose_input(tmp_path),
                          str(tmp_path / "bad.bin"))
    assert "variant 'g128': an unknown token 'g128'" in error


def test_the_tuning_guide_shows_the_tokens_tune_lists(tessera):
    # One table (src/relayout/kernel_variant.cpp) makes the parser, the names, `tune --list` and
    # the guide's table: the guide is generated from the list (tools/docs/generate.py).
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools" / "docs"))
    import variant_tokens

    listed = tessera.run("tune", "--list").stdout
    assert variant_tokens.PAGE.read_text(encoding="utf-8") == variant_tokens.page_with(listed), (
        "regenerate with: python3 tools/docs/generate.py --tessera build/release/tessera")
    for token in ("g256", "4k", "p1m", "best", "ra64", "2band"):
        assert f"`{token}`" in variant_tokens.table(listed)
