"""Hostile input, round 2. Every case is replayed through the real binary with raw
bytes: exit 2 and one `error:` line (or the documented answer), valid UTF-8 without control
characters on both streams, within 1 GiB of address space. The Python side of the same refusals
is tests/python/test_hostile_round2.py."""
import json
import os
import resource
import subprocess
import xml.etree.ElementTree

import numpy as np
import pytest

SPEC = "npus=4,lmem=1024,align=128,banks=4"
GIB = 1 << 30


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (GIB, GIB))


def replay(tessera, *args, stdout=subprocess.PIPE):
    """Runs tessera on bytes; returns (status, stdout bytes, stderr text) after checking both
    streams are printable UTF-8 (no control character but line breaks)."""
    sanitized = bool(os.environ.get("TESSERA_SANITIZED"))  # ASan maps terabytes of shadow
    args = [a if isinstance(a, bytes) else str(a) for a in args]
    result = subprocess.run([tessera.path, *args], stdout=stdout, stderr=subprocess.PIPE,
                            timeout=60, preexec_fn=None if sanitized else limit_memory)
    for stream in (result.stdout or b"", result.stderr):
        text = stream.decode("utf-8")  # raises on anything that is not UTF-8
        assert not [c for c in text if ord(c) < 32 and c != "\n" or 0x7F <= ord(c) <= 0x9F], text
    return result.returncode, result.stdout, result.stderr.decode()


def refused(tessera, *args):
    status, _, stderr = replay(tessera, *args)
    assert status == 2, stderr
    assert stderr.startswith("error: ") and stderr.endswith("\n"), stderr
    return stderr


def write_plan(tmp_path, plan, name="plan.json"):
    path = tmp_path / name
    path.write_text(json.dumps(plan) if isinstance(plan, dict) else plan)
    return path


def at_address_zero(count, device="bm1684"):
    return {"device": device, "tensors": [{"name": f"t{i}", "shape": [1, 64, 1, 8], "dtype": "f32",
                                           "address": 0} for i in range(count)]}


# Row 1: 362 tensors at address 0 (inside the 2^22 bound) took 1.67 GB, ~385 MB of JSON, and
# aborted under a 2 GB limit; 100 tensors made 81 MB of JSON.
def test_overlaps_are_grouped_per_pair_and_bounded(tessera, tmp_path):
    path = write_plan(tmp_path, at_address_zero(362))
    status, out, _ = replay(tessera, "npu", "plan", path, "--json")
    assert status == 0 and len(out) < 2 << 20
    report = json.loads(out)
    assert report["summary"]["overlapping_pairs"] == 362 * 361 // 2
    assert report["summary"]["listed_at_most"] == 100 and len(report["overlaps"]) == 100
    first = report["overlaps"][0]
    assert (first["a"], first["b"], first["npus"], first["first_npu"], first["last_npu"]) == \
        ("t0", "t1", 64, 0, 63)
    assert first["bytes"] == 64 * 32 and first["byte_range"] == [0, 32]
    assert first["a_element"] == first["b_element"] == [0, 0, 0, 0]
    status, out, _ = replay(tessera, "npu", "plan", path)
    text = out.decode()
    assert status == 0 and "overlaps (65341 tensor pairs; the first 100 listed" in text
    assert text.count(" share ") == 100
    assert len(json.loads(replay(tessera, "npu", "plan", path, "--json", "--max-overlaps", "0")[1])
               ["overlaps"]) == 0
    assert "--max-overlaps) must be 0..100000, not -1" in \
        refused(tessera, "npu", "plan", path, "--max-overlaps", "-1")


def test_the_picture_of_a_crowded_plan_stays_small_and_well_formed(tessera, tmp_path):
    path = write_plan(tmp_path, at_address_zero(362))
    for name in ("map.svg", "map.html"):
        status, _, _ = replay(tessera, "npu", "plan", path, "-o", tmp_path / name)
        assert status == 0 and (tmp_path / name).stat().st_size < 16 << 20
    xml.etree.ElementTree.parse(tmp_path / "map.svg")  # well-formed XML
    assert "358 more tensor(s)" in (tmp_path / "map.svg").read_text()


# Row 2: overlaps and unplaced tensors exited 0; `--check` gives CI a status.
@pytest.mark.parametrize("tensors, ops, status, summary", [
    ([("a", [1, 6, 1, 8], 0), ("b", [1, 6, 1, 8], 512)], [], 0, "clean"),
    ([("a", [1, 6, 1, 8], 0), ("b", [1, 2, 1, 8], 128)], [], 1, "1 overlapping tensor pair"),
    ([("a", [1, 6, 1, 8], 0), ("b", [1, 1, 1, 8], 2176)], [], 0, "clean (2 empty-block reuse"),
    ([("a", [1, 4, 1, 32], 256), ("b", [6, 4, 1, 32], "auto")], [], 1, "1 auto tensor not placed"),
    ([("a", [1, 1, 1, 64], 896)], [], 1, "1 tensor past the end of local memory"),
    ([("a", [1, 4, 1, 8], 0, "compact"), ("b", [1, 4, 1, 8], 32, "compact")], [("op", ["a"], ["b"])],
     1, "1 op read/write pair sharing banks"),
])
def test_check_exits_1_unless_the_plan_is_clean(tessera, tmp_path, tensors, ops, status, summary):
    plan = {"device": SPEC,
            "tensors": [{"name": t[0], "shape": t[1], "dtype": "f32", "address": t[2],
                         "layout": t[3] if len(t) > 3 else "aligned"} for t in tensors],
            "ops": [{"name": n, "reads": r, "writes": w} for n, r, w in ops]}
    path = write_plan(tmp_path, plan)
    got, out, err = replay(tessera, "npu", "plan", path, "--check")
    assert got == status, err
    assert f"check    {summary}" in out.decode()
    assert err == ("" if status == 0 else f"check failed: {summary}\n") or summary.startswith("clean")
    assert replay(tessera, "npu", "plan", path)[0] == 0  # without --check: a report, status 0
    assert json.loads(replay(tessera, "npu", "plan", path, "--json", "--check")[1])["summary"][
        "clean"] == (status == 0)


def test_an_unplaced_tensor_promises_only_slices_it_has(tessera, tmp_path):
    plan = {"device": SPEC, "tensors": [
        {"name": "fixed", "shape": [1, 4, 1, 32], "dtype": "f32", "address": 256},
        {"name": "late", "shape": [6, 4, 1, 32], "dtype": "f32", "address": "auto"}]}
    report = json.loads(replay(tessera, "npu", "plan", write_plan(tmp_path, plan), "--json")[1])
    late = report["tensors"][1]
    assert late["address"] == "auto" and late["free_band"] == 640
    assert "see slices" not in late["placement"]
    assert late["slices"] == [{"dim": "N", "count": 2, "shape": [3, 4, 1, 32], "bytes_per_npu": 384}]


# Row 3: `explain ... > /dev/full` exited 0 with nothing written.
@pytest.mark.parametrize("args", [
    ["explain", "f32[3,5]"], ["explain", "f32[3,5]", "--json"], ["info", "f32[3,5]{1,0:T(2,2)}"],
    ["index", "f32[3,5]{1,0:T(2,2)}", "2,3"], ["--help"], ["--version"], ["explain", "--list-targets"],
    ["npu", "info", "--device", "bm1684", "--shape", "1,1,1,1", "--dtype", "f32", "--address", "0"],
    ["completion", "bash"],
])
def test_a_full_standard_output_is_an_error(tessera, args):
    with open("/dev/full", "wb") as full:
        status, _, stderr = replay(tessera, *args, stdout=full)
    assert status == 2 and stderr == "error: cannot write standard output: No space left on device\n"


def test_a_full_standard_output_after_a_plan_report(tessera, tmp_path):
    path = write_plan(tmp_path, at_address_zero(3))
    with open("/dev/full", "wb") as full:
        status, _, stderr = replay(tessera, "npu", "plan", path, "--json", stdout=full)
    assert status == 2 and "No space left on device" in stderr


# Row 4: a FIFO without a writer held convert and npu plan in openat forever.
def test_fifos_are_refused_without_blocking(tessera, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    words = f"error: cannot read '{fifo}': it is a FIFO (named pipe), not a regular file; tessera " \
            "reads only files whose size it can check first\n"
    assert refused(tessera, "convert", "--from", "f32[4]", "--to", "f32[4]", fifo, tmp_path / "o.bin") == words
    assert refused(tessera, "npu", "plan", fifo) == words
    # explain, which reads a pipe on standard input, says how (round 3).
    assert refused(tessera, "explain", fifo) == words[:-1] + \
        "; send it to standard input and give '-' instead (cmd | tessera explain -)\n"
    assert not (tmp_path / "o.bin").exists()


# Row 5: control characters and bytes that are not UTF-8, in names, shapes and reports.
def test_control_characters_are_escaped_or_refused(tessera, tmp_path):
    plan = {"device": SPEC, "tensors": [{"name": "a\u0001b", "shape": [1, 1, 1, 1], "dtype": "f32",
                                         "address": 0}]}
    assert "the name 'a\\u0001b' cannot be printed as it is: character 2 is the control character " \
        "U+0001" in refused(tessera, "npu", "plan", write_plan(tmp_path, plan))
    assert "'a\\u0001b' cannot" in refused(tessera, "npu", "plan", write_plan(tmp_path, plan), "-o",
                                           tmp_path / "m.svg")
    assert not (tmp_path / "m.svg").exists()
    assert "found '\\u0001' (at column 6)" in refused(tessera, "info", b"f32[2\x013]")
    # A NUL from a file no longer cuts the message short.
    (tmp_path / "nul.txt").write_bytes(b"f32[2\x003]{0}\n")
    status, out, err = replay(tessera, "explain", tmp_path / "nul.txt")
    assert status == 0 and "a control character (\\u0000)" in err
    assert "the name 'a\\xc3' cannot be printed as it is: byte 2 (0xc3) is not UTF-8" in refused(
        tessera, "explain", "npu", "--device", SPEC, "--tensor", b"a\xc3:shape=1,1,1,1:dtype=f32:address=0")


def test_bytes_that_are_not_utf8_in_a_report_are_named(tessera, tmp_path):
    (tmp_path / "r.txt").write_bytes(b"HloModule m\n\nENTRY e {\n  p = f32[2\xc33]{1,0} parameter(0)\n}\n")
    status, out, err = replay(tessera, "explain", tmp_path / "r.txt")
    assert status == 0 and "dynamic" not in out.decode() + err
    assert "the shape holds a byte that is not UTF-8 (\\xc3)" in err
    status, out, _ = replay(tessera, "explain", tmp_path / "r.txt", "--json")
    assert json.loads(out)["arrays"][0]["shape"] == "f32[2\\xc33]{1,0}"


# Row 6: .npy headers NumPy refuses.
@pytest.mark.parametrize("dictionary, words", [
    ("{'descr': '<f4', 'fortran_order': False, 'shape': (16,), 'x': 1, }",
     "the header has the key 'x'; NumPy allows only"),
    ("{'descr': '<f4', 'fortran_order': False, 'shape': (16), }", "'shape' is (16), an integer"),
])
def test_npy_headers_numpy_refuses_are_refused(tessera, tmp_path, dictionary, words):
    dictionary += " " * (63 - (10 + len(dictionary)) % 64) + "\n"
    (tmp_path / "a.npy").write_bytes(b"\x93NUMPY\x01\x00" + len(dictionary).to_bytes(2, "little") +
                                     dictionary.encode() + bytes(64))
    with pytest.raises(ValueError):
        np.load(tmp_path / "a.npy")
    assert words in refused(tessera, "convert", "--to", "f32[16]", tmp_path / "a.npy", tmp_path / "o.bin")


# Row 7: plan JSON with duplicate keys, trailing garbage after a NUL, impossible alignments.
@pytest.mark.parametrize("text, words", [
    ('{"device": "bm1684", "tensors": [{"name": "a", "shape": [1,1,1,1], "dtype": "f32", '
     '"address": 0, "address": 128}]}', "tensors[0]: the key 'address' is given twice"),
    ('{"device": "bm1684", "device": "bm1688", "tensors": []}', "the key 'device' is given twice"),
    ('{"device": "bm1684", "tensors": [{"name": "a", "shape": [1,1,1,1], "dtype": "f32", '
     '"address": 0}]}\0garbage', "is a NUL byte"),
    ('{"device": "bm1684", "tensors": [{"name": "a", "shape": [1,1,1,1], "dtype": "f32", '
     '"address": 0}]} garbage', "not valid JSON"),
    ('{"device": "npus=4,lmem=1K,align=3", "tensors": [{"name": "a", "shape": [1,1,1,1], '
     '"dtype": "f32", "address": 0}]}', "field 'device': the alignment must be a power of two"),
    ('{"device": "npus=4,lmem=1K,align=2048", "tensors": [{"name": "a", "shape": [1,1,1,1], '
     '"dtype": "f32", "address": 0}]}', "field 'device': the alignment of 2048 bytes is larger"),
])
def test_malformed_plans_are_refused_naming_the_field(tessera, tmp_path, text, words):
    assert words in refused(tessera, "npu", "plan", write_plan(tmp_path, text))


# Row 8: --jax-layout with junk, a missing ')', a SHAPE's own layout, or a FILE.
def test_jax_layouts_are_read_whole(tessera, tmp_path):
    message = refused(tessera, "explain", "f32[8,256]", "--jax-layout", "Layout(major_to_minor=(0, 1)) junk")
    assert message.splitlines()[1:] == ["  Layout(major_to_minor=(0, 1)) junk", " " * 32 + "^"]
    assert "missing ')'" in refused(tessera, "explain", "f32[8,256]", "--jax-layout",
                                    "Layout(major_to_minor=(0, 1), tiling=((8, 128),)")
    message = refused(tessera, "explain", "f32[8,256]", "--jax-layout",
                      "Layout(major_to_minor=(0, 1), tiling=((0, 128),))")
    assert message.splitlines()[1] == "  Layout(major_to_minor=(0, 1), tiling=((0, 128),))"
    assert "has a layout of its own" in refused(tessera, "explain", "f32[8,256]{0,1}", "--jax-layout",
                                                "Layout(major_to_minor=(0, 1))")
    (tmp_path / "r.txt").write_text("f32[8,256]{1,0}\n")
    assert "--jax-layout lays out a SHAPE" in refused(tessera, "explain", tmp_path / "r.txt",
                                                      "--jax-layout", "Layout(major_to_minor=(0, 1))")


# Row 9: "w": "best" never said which W, and the plan printed back said "best".
def test_best_width_is_reported_and_printed_back(tessera, tmp_path):
    plan = {"device": SPEC, "tensors": [{"name": "m", "rows": 2, "cols": 40, "w": "best",
                                         "dtype": "f32", "address": 0}]}
    path = write_plan(tmp_path, plan)
    report = json.loads(replay(tessera, "npu", "plan", path, "--json")[1])
    assert report["tensors"][0]["w"] == 10 and report["tensors"][0]["best_w"]
    assert report["plan"]["tensors"][0]["w"] == 10
    text = replay(tessera, "npu", "plan", path)[1].decode()
    assert ", W 10 (best), fits" in text and '"w":10' in text


# Row 10: bf16 to .npy was '<u2', so np.load gave uint16.
def test_bf16_npy_is_written_as_ml_dtypes_writes_it(tessera, tmp_path):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    data = np.arange(-8, 8, dtype=np.float32).reshape(2, 8).astype(ml_dtypes.bfloat16)
    np.save(tmp_path / "in.npy", data)  # '<V2', as ml_dtypes saves it
    status, _, note = replay(tessera, "convert", "--to", "bf16[2,8]{1,0:T(2,8)(2,1)}", tmp_path / "in.npy",
                             tmp_path / "t.bin")
    assert status == 0
    status, _, note = replay(tessera, "convert", "--from", "bf16[2,8]{1,0:T(2,8)(2,1)}", tmp_path / "t.bin",
                             tmp_path / "back.npy")
    assert status == 0 and "view(ml_dtypes.bfloat16)" in note
    back = np.load(tmp_path / "back.npy")
    assert back.dtype == np.dtype("V2") == np.load(tmp_path / "in.npy").dtype
    assert np.array_equal(back.view(ml_dtypes.bfloat16), data)
    # And read back without a shape: '<V2' says bf16.
    assert replay(tessera, "convert", "--to", "bf16[2,8]{1,0:T(2,8)(2,1)}", tmp_path / "back.npy",
                  tmp_path / "again.bin")[0] == 0
    assert (tmp_path / "again.bin").read_bytes() == (tmp_path / "t.bin").read_bytes()


# Row 11: OUT a dangling link was replaced by a regular file; a live one was followed.
@pytest.mark.parametrize("live", [True, False])
def test_out_through_a_symbolic_link_writes_the_file_it_names(tessera, tmp_path, live):
    (tmp_path / "data").mkdir()
    if live:
        (tmp_path / "data" / "out.bin").write_bytes(b"old")
    os.symlink("data/out.bin", tmp_path / "link.bin")
    (tmp_path / "in.bin").write_bytes(bytes(16))
    assert replay(tessera, "convert", "--from", "f32[4]", "--to", "f32[4]{0:T(2)}", tmp_path / "in.bin",
                  tmp_path / "link.bin")[0] == 0
    assert os.path.islink(tmp_path / "link.bin")
    assert (tmp_path / "data" / "out.bin").read_bytes() == bytes(16)


# Row 12: a report cut inside a number was flagged as disagreeing with the report.
def test_a_report_cut_inside_a_number_warns(tessera, tmp_path):
    (tmp_path / "cut.txt").write_text(
        "Largest program allocations in hbm:\n  1. Size: 64.00M\n"
        "     Shape: f32[1024,245,64]{1,2,0:T(8,128)}\n     Unpadded size: 61.")
    status, out, err = replay(tessera, "explain", tmp_path / "cut.txt")
    assert status == 0 and "DISAGREES" not in out.decode()
    assert err == "warning: line 4: 'Unpadded size: 61.' is cut short or not a size XLA prints; " \
        "not compared\n"
