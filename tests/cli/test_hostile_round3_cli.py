"""Hostile input, round 3: wisdom files treated as the user's files, the compiler's child process
bounded, every cost bounded, one decoder for every text input, one refusal per mistake. Every case
runs the real binary under a 1 GiB address-space limit and a time limit: exit 0, 1 or 2, printable
UTF-8 on both streams, no signal, no hang, the user's files untouched."""
import json
import os
import resource
import stat
import subprocess
import time

import numpy as np
import pytest

GIB = 1 << 30


def limits(file_bytes=None):
    sanitized = bool(os.environ.get("TESSERA_SANITIZED"))  # ASan maps terabytes of shadow

    def apply():
        if not sanitized:
            resource.setrlimit(resource.RLIMIT_AS, (GIB, GIB))
        if file_bytes is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
    return apply


def replay(tessera, *args, env=None, stdin=subprocess.DEVNULL, timeout=60, file_bytes=None,
           input=None):
    """Runs tessera; returns (status, stdout text, stderr text) after checking both streams are
    printable UTF-8 and that no signal ended it."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    result = subprocess.run([tessera.path, *[str(a) for a in args]], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, timeout=timeout, env=full_env,
                            stdin=None if input is not None else stdin, input=input,
                            preexec_fn=limits(file_bytes))
    assert result.returncode in (0, 1, 2), (result.returncode, result.stderr)  # no signal
    texts = []
    for stream in (result.stdout, result.stderr):
        text = stream.decode("utf-8")  # raises on anything that is not UTF-8
        assert not [c for c in text if ord(c) < 32 and c not in "\n" or 0x7F <= ord(c) <= 0x9F], text
        texts.append(text)
    return result.returncode, texts[0], texts[1]


def refused(tessera, *args, **kwargs):
    status, _, stderr = replay(tessera, *args, **kwargs)
    assert status == 2, stderr
    assert stderr.startswith("error: ") and stderr.endswith("\n"), stderr
    return stderr


def model_variant(tessera):
    """A variant name this build reads (the transpose class's model)."""
    _, out, _ = replay(tessera, "tune", "--list")
    line = next(l for l in out.splitlines() if l.startswith("transpose (model: "))
    return line.split("(model: ")[1].rstrip(")")


def wisdom_of(host, choices):
    return {"tessera_wisdom": 1, "hosts": [{"host": host, "choices": choices}]}


def choice(variant):
    return {"variant": variant, "measured": "2026-11-27", "mode": "measure", "ratio": 0.5,
            "model_ratio": 0.6, "variants": 3, "tries": 9}


# --- Wisdom files are the user's files -------------------------------------------------------

def test_export_refuses_a_device_and_a_fifo(tessera, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert "not a regular file" in refused(tessera, "tune", "--export", fifo,
                                           "--wisdom", tmp_path / "w.json")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    device = tmp_path / "full"
    try:
        os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 7))  # /dev/full's numbers
    except PermissionError:
        return  # only root makes devices; the FIFO above is the same rule
    assert "not a regular file" in refused(tessera, "tune", "--export", device,
                                           "--wisdom", tmp_path / "w.json")
    assert stat.S_ISCHR(os.lstat(device).st_mode)


def test_wisdom_is_written_through_a_link_keeping_permissions(tessera, tmp_path):
    variant = model_variant(tessera)
    target = tmp_path / "real.json"
    target.write_text(json.dumps(wisdom_of({"model": "elsewhere"}, {"transpose/4B/page/t1": choice(variant)})))
    os.chmod(target, 0o600)
    link = tmp_path / "link.json"
    link.symlink_to(target.name)
    other = tmp_path / "other.json"
    other.write_text(json.dumps(wisdom_of({"model": "third"}, {"runs/4B/page/t1": choice(variant)})))
    status, out, err = replay(tessera, "tune", "--wisdom", link, "--import", other)
    assert status == 0, err
    assert link.is_symlink() and os.readlink(link) == target.name
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o600
    hosts = [h["host"] for h in json.loads(target.read_text())["hosts"]]
    assert {"model": "elsewhere"} in hosts and {"model": "third"} in hosts


def test_a_file_that_is_not_wisdom_is_never_replaced(tessera, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_bytes(b"my notes\n")
    status, out, err = replay(tessera, "tune", "--wisdom", notes, "--class", "transpose",
                              "--threads", "1", "--seconds", "4")
    assert status == 2 and "is not tessera wisdom" in err and "notes.txt" in err, err
    assert "host:" not in out and "[1/1]" not in err, "refused after measuring"
    assert notes.read_bytes() == b"my notes\n"
    other = tmp_path / "other.json"
    other.write_text(json.dumps(wisdom_of({"model": "x"}, {})))
    refused(tessera, "tune", "--wisdom", notes, "--import", other)
    assert notes.read_bytes() == b"my notes\n"


def test_an_unwritable_cache_is_refused_before_measuring(tessera, tmp_path):
    status, out, err = replay(tessera, "tune", "--class", "transpose", "--threads", "1",
                              "--seconds", "4", env={"XDG_CACHE_HOME": "/dev/null"})
    assert status == 2 and err.startswith("error: "), err
    assert "host:" not in out and "[1/1]" not in err, "refused after measuring"


def test_import_keeps_every_entry_of_other_hosts(tessera, tmp_path):
    variant = model_variant(tessera)
    exported = wisdom_of({"model": "elsewhere"}, {
        "transpose/4B/page/t1": choice(variant),
        "transpose/4B/page/t2": choice("staged-nosuchtoken"),  # a newer build's token
    })
    source = tmp_path / "exported.json"
    source.write_text(json.dumps(exported))
    wisdom = tmp_path / "w.json"
    status, _, err = replay(tessera, "tune", "--wisdom", wisdom, "--import", source)
    assert status == 0, err
    kept = json.loads(wisdom.read_text())["hosts"]
    assert kept == exported["hosts"]


def test_concurrent_runs_on_one_file_keep_each_others_results(tessera, tmp_path):
    variant = model_variant(tessera)
    wisdom = tmp_path / "w.json"
    sources = []
    for i in range(8):
        source = tmp_path / f"host{i}.json"
        source.write_text(json.dumps(wisdom_of({"model": i}, {"transpose/4B/page/t1": choice(variant)})))
        sources.append(source)
    runs = [subprocess.Popen([tessera.path, "tune", "--wisdom", str(wisdom), "--import", str(s)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for s in sources]
    for run in runs:
        assert run.wait(timeout=60) == 0, run.stderr.read()
    hosts = sorted(h["host"]["model"] for h in json.loads(wisdom.read_text())["hosts"])
    assert hosts == list(range(8))


def convert_args(tmp_path):
    source = tmp_path / "in.npy"
    np.save(source, np.zeros((64, 64), dtype=np.float32))
    return ["convert", "--to", "f32[64,64]{0,1}", source, tmp_path / "out.bin"]


def test_wisdom_paths_that_are_not_files_never_block(tessera, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path in (fifo, "/dev/zero"):
        env = {"TESSERA_WISDOM": str(path)}
        for args in (["diff", "f32[8,256]{1,0}", "f32[8,256]{0,1}"], convert_args(tmp_path)):
            status, _, err = replay(tessera, *args, env=env, timeout=30)
            assert status == 0, err
            # Plans too small to need wisdom do not read it; those that do warn and go on.
            assert not err or (err.startswith("warning: ignoring wisdom file")
                               and "not a regular file" in err), err
        source = tmp_path / "other.json"
        source.write_text(json.dumps(wisdom_of({"model": "x"}, {})))
        message = refused(tessera, "tune", "--wisdom", path, "--import", source, timeout=30)
        assert "not a regular file" in message


@pytest.mark.parametrize("depth", [100_000, 20_000])
def test_deeply_nested_wisdom_is_refused_as_it_is_read(tessera, tmp_path, depth):
    deep = tmp_path / "deep.json"
    deep.write_text('{"tessera_wisdom": 1, "hosts": [{"host": ' + "[" * depth + "]" * depth +
                    ', "choices": {}}]}')
    env = {"TESSERA_WISDOM": str(deep)}
    status, out, err = replay(tessera, "tune", "--export", "-", env=env)
    assert status == 0 and "nest deeper than 64" in err, err
    assert len(out) < 4096, len(out)
    assert "nest deeper than 64" in refused(tessera, "tune", "--wisdom", tmp_path / "w.json",
                                            "--import", deep)


def test_the_wisdom_warning_is_a_warning_like_any_other(tessera, tmp_path):
    bad = tmp_path / "bad\x1b[31m.json"
    bad.write_text("{")
    status, _, err = replay(tessera, "tune", "--export", "-", env={"TESSERA_WISDOM": str(bad)})
    assert status == 0 and err.startswith("warning: ignoring wisdom file '"), err
    assert "bad\\u001b[31m.json" in err, err


@pytest.mark.skipif(bool(os.environ.get("TESSERA_SANITIZED")),
                    reason="ASan needs more address space than the 1 GiB limit that refuses the "
                    "threads; without it 1024 sanitized threads start and tune runs out of time")
def test_threads_the_system_refuses_are_an_error(tessera, tmp_path):
    status, _, err = replay(tessera, "tune", "--wisdom", tmp_path / "w.json", "--class",
                            "transpose", "--threads", "1024", "--seconds", "1", "--quiet",
                            timeout=120)
    # 1024 threads' stacks do not fit in 1 GiB: refused in words, never std::terminate.
    assert status == 2 and "cannot start 1024 threads" in err, err


# --- The compiler's child process ----------------------------------------------------------

def fake_python(tmp_path, body):
    """A 'python' that ignores the script and runs `body` (sh)."""
    path = tmp_path / "fake-python"
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return {"TESSERA_PYTHON": str(path), "TESSERA_COMPILER_SECONDS": "2"}


READY = '{"ready": {"jax": "0.10.2", "libtpu": "0.0.30"}}'


def check(tessera, tmp_path, body, **kwargs):
    return replay(tessera, "explain", "f32[1024,3]", "--target", "tpu-v5e",
                  "--check-with-compiler", env=fake_python(tmp_path, body), **kwargs)


def test_a_child_that_hangs_is_ended(tessera, tmp_path):
    status, _, err = check(tessera, tmp_path, "exec sleep 1000", timeout=30)
    assert status == 2 and "gave no answer in 2 s" in err, err


def test_a_grandchild_holding_stdout_does_not_hold_tessera(tessera, tmp_path):
    marker = tmp_path / "grandchild.pid"
    body = (f"echo '{READY}'\necho '{{\"layouts\": [\"f32[1024,3]{{0,1:T(4,128)}}\"], "
            f"\"sizes\": [16384]}}'\nsleep 1000 &\necho $! > {marker}\nexit 0")
    status, out, err = check(tessera, tmp_path, body, timeout=30)
    assert status in (0, 1) and "compiler check" in out, err
    pid = int(marker.read_text())
    time.sleep(0.2)
    try:  # its whole process group was ended: gone, or a zombie whose parent is gone
        with open(f"/proc/{pid}/status") as status_file:
            assert "\nState:\tZ" in status_file.read()
    except FileNotFoundError:
        pass


def test_a_child_that_floods_is_ended(tessera, tmp_path):
    status, _, err = check(tessera, tmp_path, "exec yes", timeout=30)
    assert status == 2 and "more than 1048576 bytes" in err, err


@pytest.mark.parametrize("answer, words", [
    ('{"layouts": ["f32[1024,3]\\u001b[2J\\u0007\\u009b{0,1}"], "sizes": [16384]}', None),
    ('{"layouts": ["f32[1024,3]{0,1}"], "sizes": [-9223372036854775808]}', "is not a number of bytes"),
    ('{"layouts": ["f32[1024,3]{0,1}"], "sizes": [-5]}', "is not a number of bytes"),
    ('{"layouts": ["f32[1024,3]{0,1}"], "sizes": [1.5]}', "is not a number of bytes"),
    ('{"layouts": [7], "sizes": [1]}', "the layout is not text"),
    ('{"layouts": "x", "sizes": [1]}', "is not a list of one value"),
    ('{"error": "RESOURCE_EXHAUSTED \\u001b]0;title\\u0007"}', "the TPU compiler refused the array"),
    ('[' * 100 + ']' * 100, "nest deeper than 64"),
    ('{"layouts": ["a"], "sizes": [1], "sizes": [2]}', "given twice"),
])
def test_the_childs_answers_are_checked_and_escaped(tessera, tmp_path, answer, words):
    script = tmp_path / "answer.txt"
    script.write_text(READY + "\n" + answer + "\n")
    status, out, err = check(tessera, tmp_path, f"cat {script}")
    assert "json.exception" not in err
    if words is None:
        assert status == 1 and "\\u001b[2J\\u0007\\u009b" in out, (out, err)
    else:
        assert status == 2 and words in err, err


def test_check_with_compiler_refuses_a_file(tessera, tmp_path):
    report = tmp_path / "report.txt"
    report.write_text("f32[8,128]{1,0}\n")
    assert "--check-with-compiler checks a SHAPE" in refused(tessera, "explain", report,
                                                             "--check-with-compiler")


# --- Bounded costs ---------------------------------------------------------------------------

def fanned_module(ways=16, depth=8):
    """A copy passed to the result through `depth` tuples, each taking the one before `ways`
    times: deciding whether the copy is returned by following users took ways**depth steps."""
    lines = ["HloModule fanned", "ENTRY %main (p: f32[8,128]) -> (f32[8,128]) {",
             "  %p = f32[8,128]{1,0:T(8,128)} parameter(0)",
             "  %n = f32[8,128]{1,0:T(8,128)} negate(%p)",
             "  %c = f32[8,128]{0,1:T(8,128)} copy(%n)"]
    previous = "c"
    for level in range(depth):
        lines.append(f"  %t{level} = (f32[8,128]) tuple({', '.join(['%' + previous] * ways)})")
        previous = f"t{level}"
    lines.append(f"  ROOT %r = (f32[8,128]) tuple(%{previous})")
    lines.append("}")
    return "\n".join(lines) + "\n"


def test_copies_decides_what_is_returned_in_linear_time(tessera, tmp_path):
    module = tmp_path / "fanned.hlo"
    module.write_text(fanned_module())
    status, out, err = replay(tessera, "explain", module, "--copies", timeout=20)
    assert status == 0 and "copy c" in out, (out, err)
    assert "returned transposed" in out, out


def no_common_refinement(elements):
    return f"f32[{elements}]{{0:T(127)}}", f"f32[{elements}]{{0:T(128)}}"


def test_diff_without_a_common_refinement_is_bounded(tessera):
    a, b = no_common_refinement(1_000_000_000)
    message = refused(tessera, "diff", a, b, timeout=30)
    assert "no common refinement" in message and "one by one (at most 16777216)" in message


def test_mismatch_pays_the_bound_once_per_text(tessera, tmp_path):
    a, b = no_common_refinement(10_000_000)
    log = tmp_path / "log.txt"
    log.write_text("".join(f"layout mismatch: expected {a} but got {b}\n" for _ in range(40)))
    status, out, err = replay(tessera, "mismatch", log, "--json", timeout=120)
    assert status == 0, err
    found = json.loads(out)["mismatches"]
    assert len(found) == 40 and found[0]["moved_elements"] is not None
    assert found[-1]["moved_elements"] is None  # past the text's bound: explained, not counted


def test_line_readers_stream(tessera, tmp_path):
    newlines = tmp_path / "newlines.txt"
    newlines.write_bytes(b"\n" * 30_000_000)  # ~1.6 GB as a vector of lines
    status, out, err = replay(tessera, "mismatch", newlines, timeout=60)
    assert status == 0 and "no layout-mismatch error found" in out, err
    module = tmp_path / "newlines.hlo"
    module.write_bytes(b"HloModule m\n" + b"\n" * 30_000_000)
    status, out, err = replay(tessera, "explain", module, "--copies", timeout=60)
    assert status == 0, err


def test_a_file_size_limit_is_a_write_error(tessera, tmp_path):
    source = tmp_path / "in.npy"
    np.save(source, np.zeros((512, 512), dtype=np.float32))  # 1 MiB out
    out = tmp_path / "out.bin"
    message = refused(tessera, "convert", "--to", "f32[512,512]{0,1}", source, out,
                      file_bytes=64 << 10)
    assert "File too large" in message, message
    assert not out.exists()
    message = refused(tessera, "draw", "f32[512,512]{1,0:T(8,128)}", "-o", tmp_path / "p.svg",
                      file_bytes=1 << 10)
    assert "File too large" in message, message


# --- One decoder for every text input --------------------------------------------------------

MISMATCH = "layout mismatch: expected f32[8,256]{1,0:T(8,128)} but got f32[8,256]{0,1:T(8,128)}\n"


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_utf16_reads_everywhere(tessera, tmp_path, encoding):
    log = tmp_path / "log.txt"
    log.write_bytes(MISMATCH.encode(encoding))
    status, out, err = replay(tessera, "mismatch", log)
    assert status == 0 and "line 1: a layout mismatch" in out, (out, err)
    module = tmp_path / "m.hlo"
    module.write_bytes(fanned_module(ways=2, depth=1).encode(encoding))
    status, out, err = replay(tessera, "explain", module, "--copies")
    assert status == 0 and "copy c" in out, (out, err)


# --- One rule per mistake --------------------------------------------------------------------

def test_diff_shape_with_its_own_layout_must_agree(tessera):
    message = refused(tessera, "diff", "Layout(major_to_minor=(1, 0))", "Layout(major_to_minor=(0, 1))",
                      "--shape", "f32[8,256]{0,1}")
    assert "has a layout of its own" in message


def test_a_field_given_under_two_names_is_refused(tessera):
    message = refused(tessera, "explain", "f32[8,256]", "--jax-layout",
                      "Layout(major_to_minor=(0, 1), tiling=((8, 128),), _tiling=((4, 128),))")
    assert "'tiling' is given twice" in message


def test_a_reshape_that_changes_the_element_count_is_not_a_relayout(tessera, tmp_path):
    module = tmp_path / "m.hlo"
    module.write_text("HloModule m\nENTRY %main (p: f32[2048]) -> f32[2100] {\n"
                      "  %p = f32[2048]{0} parameter(0)\n"
                      "  ROOT %r = f32[2100]{0} reshape(%p)\n}\n")
    status, out, err = replay(tessera, "explain", module, "--copies")
    assert status == 0 and "0 of 2100" not in out, out
    assert "a reshape keeps its elements" in err, err


def test_mismatch_names_another_element_type(tessera):
    status, out, _ = replay(tessera, "mismatch",
                            "layout mismatch: expected f32[8,256]{1,0} but got bf16[8,256]{1,0}")
    assert status == 0 and "element_type  f32 -> bf16" in out and "element_bits" not in out, out


def test_a_second_entry_is_named(tessera, tmp_path):
    module = tmp_path / "m.hlo"
    module.write_text("HloModule m\nENTRY %a (p: f32[8]) -> f32[8] {\n  ROOT %p = f32[8]{0} parameter(0)\n}\n"
                      "ENTRY %b (q: f32[8]) -> f32[8] {\n  ROOT %q = f32[8]{0} parameter(0)\n}\n")
    status, _, err = replay(tessera, "explain", module, "--copies")
    assert status == 0 and "a second ENTRY computation b (the first is a, line 2)" in err, err


def test_a_pipe_on_standard_input_is_read(tessera):
    status, out, err = replay(tessera, "explain", input=b"f32[3,5]{1,0:T(8,128)}\n")
    assert status == 0 and "f32[3,5]" in out and "== Which arrays" not in out, (out, err)


def test_a_fifo_path_names_the_alternative(tessera, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    message = refused(tessera, "explain", fifo, timeout=10)
    assert "it is a FIFO (named pipe)" in message and "give '-' instead (cmd | tessera explain -)" in message


def test_a_tuple_shaped_check_is_compared_element_by_element(tessera):
    status, out, err = replay(tessera, "mismatch",
                              "Expected instruction to have shape equal to (s32[]{:T(256)}, "
                              "f32[8,256]{1,0:T(8,128)}), actual shape is (s32[]{:T(256)}, "
                              "f32[8,256]{0,1:T(8,128)})")
    assert status == 0 and "XLA's shape check" in out, (out, err)
    assert "f32[8,256]{1,0:T(8,128)}" in out and "f32[8,256]{0,1:T(8,128)}" in out, out


def test_diff_json_escapes_its_input_as_explain_does(tessera):
    repr_ = 'Format(Layout(major_to_minor=(1, 0)), sharding="\x01\x7f")'
    status, out, err = replay(tessera, "diff", "f32[8,256]{0,1}", repr_, "--json")
    assert status == 0, err
    assert json.loads(out)["b"]["input"] == 'Format(Layout(major_to_minor=(1, 0)), sharding="\\u0001\\u007f")'


def test_a_shape_too_large_is_refused_before_its_order_is_searched(tessera, tmp_path):
    shape = "f32[" + ",".join(["2"] * 1000) + "]"  # 2^1000 elements
    assert "overflows 64 bits" in refused(tessera, "info", shape, timeout=20)
    report = tmp_path / "shapes.txt"
    report.write_text((shape + "\n") * 20)
    status, _, err = replay(tessera, "explain", report, "--target", "tpu-v5e", timeout=30)
    assert status in (0, 2) and "overflows 64 bits" in err, err
