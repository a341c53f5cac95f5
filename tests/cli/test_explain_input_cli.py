"""`tessera explain PATH|-`: OOM reports, HLO modules and logs, as files and on stdin."""
import pathlib
import subprocess

FIXTURES = pathlib.Path(__file__).resolve().parent.parent / "inputs" / "fixtures"

# A held-out style report built from real allocations (jax#7502, ColabFold#62), with prefixes.
PREFIX = "2020-05-04 09:05:40.720686: E    1578 tensorflow/compiler/xla/xla_client/xla_util.cc:76] "
REPORT = """  Largest program allocations in hbm:

  1. Size: 32.00G
     Shape: s32[8388608,8,4]{2,1,0:T(8,128)}
     Unpadded size: 1.00G
     Extra memory due to padding: 31.00G (32.0x expansion)
     XLA label: %iota.1 = s32[8388608,8,4]{2,1,0:T(8,128)} iota(), iota_dimension=0
     Allocation type: HLO temp
     ==========================

  2. Size: 64.00M
     Shape: f32[1024,245,64]{1,2,0:T(8,128)}
     Unpadded size: 61.25M
     Extra memory due to padding: 2.75M (1.0x expansion)
     XLA label: %broadcast.82209 = f32[1024,245,64]{1,2,0:T(8,128)} broadcast(f32[] %c)
     Allocation type: HLO temp
     ==========================
"""


def stdin_json(tessera, text, *args):
    import json
    result = subprocess.run([tessera.path, "explain", "-", "--json", *args], input=text,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def check_report(out):
    assert out["format"] == "oom_report"
    first, second = out["arrays"]
    assert first["name"] == "iota.1" and first["shape"] == "s32[8388608,8,4]{2,1,0:T(8,128)}"
    assert first["size_bytes"] == 32 * 2**30 and first["unpadded_bytes"] == 2**30
    assert first["padding_bytes"] == 31 * 2**30 and first["disagreements"] == []
    assert first["report"]["padding"] == "31.00G (32.0x expansion)"
    assert second["unpadded_bytes"] == 1024 * 245 * 64 * 4 and second["disagreements"] == []
    assert out["total_size_bytes"] == 32 * 2**30 + 64 * 2**20
    best = first["suggestions"][0]
    assert best["kind"] == "reshape" and best["size_bytes"] == 2**30
    for key in ("kind", "layout", "size_bytes", "bytes_saved", "change"):
        assert key in best


def test_report_file_and_stdin_with_and_without_prefixes(tessera, tmp_path):
    plain = tmp_path / "report.txt"
    plain.write_text(REPORT)
    check_report(tessera.json("explain", str(plain), "--json"))
    check_report(stdin_json(tessera, REPORT))
    prefixed = "".join(PREFIX + line + "\n" for line in REPORT.splitlines())
    check_report(stdin_json(tessera, prefixed))


def test_report_text_table(tessera, tmp_path):
    plain = tmp_path / "report.txt"
    plain.write_text(REPORT)
    text = "\n".join(tessera.lines("explain", str(plain)))
    assert "iota.1" in text and "tessera agrees" in text and "fixing the top 2 saves" in text
    assert text.index("iota.1") < text.index("broadcast.82209")  # sorted by waste


def test_disagreement_is_loud(tessera, tmp_path):
    report = tmp_path / "r.txt"
    report.write_text(REPORT.replace("Size: 64.00M", "Size: 65.00M"))
    out = tessera.json("explain", str(report), "--json")
    assert out["arrays"][1]["disagreements"] == ["Size: report 65.00M, tessera 64.00M"]
    assert "DISAGREES WITH THE REPORT" in "\n".join(tessera.lines("explain", str(report)))


def test_public_fixtures_reproduce_xla_numbers(tessera):
    for path in sorted(FIXTURES.glob("*.txt")):
        out = tessera.json("explain", str(path), "--json")
        assert out["arrays"] or out["out_of_memory"], path
        for array in out["arrays"]:
            assert array["disagreements"] == [], (path, array)


def test_hlo_module_with_tuple(tessera):
    # Hand-written with untiled layouts, read as the 2020 compilers tiled them.
    out = tessera.json("explain", str(FIXTURES / "hlo_tuple_fusion.hlo"), "--json", "--all", "--xla-era", "2020")
    assert out["format"] == "hlo_module"
    names = {a["name"]: a for a in out["arrays"]}
    assert names["tuple.8{1,1}"]["shape"] == "pred[3]{0:T(256)E(32)}"
    assert names["tuple.8{0}"]["layout"] == "f32[8]{0:T(256)}"
    assert not any(a["shape"].startswith("(") for a in out["arrays"])


def test_shards_even_and_uneven(tessera, tmp_path):
    log = tmp_path / "log.txt"
    log.write_text("buffer f32[1001,256]{1,0} here\n")
    out = tessera.json("explain", str(log), "--json", "--shards", "8,1")
    assert out["shards"] == [8, 1]
    assert out["arrays"][0]["shard_dims"] == [126, 256]
    assert out["arrays"][0]["size_bytes"] == 128 * 256 * 4
    # Arrays of another rank are explained whole, with one warning.
    log.write_text("buffer f32[1001,256]{1,0} here\nand f32[7]{0} and f32[9]{0}\n")
    rank_mismatch = tessera.run("explain", str(log), "--shards", "8,1")
    assert rank_mismatch.stderr == "warning: --shards 8,1 splits arrays of rank 2: 2 arrays of another rank are explained whole\n"
    tessera.fails("explain", str(log), "--shards", "0,1")


def test_truncated_report_warns(tessera, tmp_path):
    cut = tmp_path / "cut.txt"
    cut.write_text(REPORT[: REPORT.index("Shape: f32")])
    result = tessera.run("explain", str(cut), "--json")
    assert "warning:" in result.stderr and "allocation 2" in result.stderr


def test_default_shows_sample_report(tessera):
    text = "\n".join(tessera.lines("explain"))
    assert "out-of-memory report" in text and "x.reshape(2048, 1, 128, 512)" in text
    out = tessera.json("explain", "--json")
    arrays = out["sample_report"]["arrays"]
    example = next(a for a in arrays if a["shape"].startswith("s32[2048,1,128,128,4]"))
    kinds = [(s["kind"], s["size_bytes"]) for s in example["suggestions"]]
    assert ("reshape", 512 * 2**20) in kinds
    assert len(kinds) == len(set(kinds))


def test_missing_file_is_a_shape_error(tessera):
    tessera.fails("explain", "no/such/file.txt")


def test_jax_layout_forms(tessera):
    repr_ = "Layout(major_to_minor=(0, 1), tiling=((8, 128), (2, 1)), sub_byte_element_size_in_bits=0)"
    out = tessera.json("explain", "bf16[8,256]", "--jax-layout", repr_, "--json")
    assert out["layout"] == "bf16[8,256]{1,0:T(8,128)(2,1)}"
    assert "reversed" in out["jax_layout_note"]
    old = "Format(layout=DeviceLocalLayout(major_to_minor=(1, 0), _tiling=((8, 128), (2, 1))), sharding=x)"
    assert tessera.json("explain", "bf16[8,256]", "--jax-layout", old, "--json")["layout"] == \
        "bf16[8,256]{0,1:T(8,128)(2,1)}"
    assert "minor_to_major {1,0}" in "\n".join(tessera.lines("explain", "bf16[8,256]", "--jax-layout", repr_))
    tessera.fails("explain", "bf16[8,256]", "--jax-layout", "Layout(major_to_minor=(0,))")
    tessera.fails("explain", "bf16[8,256]", "--jax-layout", "Layout.AUTO")


def test_copies_of_a_text_that_is_not_an_hlo_module_say_so(tessera):
    out = tessera.run("explain", str(FIXTURES / "jax_7502_padding.txt"), "--copies").stdout
    assert "this is not an HLO module" in out and "none of the 0" not in out
    module = tessera.run("explain", str(FIXTURES / "hlo_tuple_fusion.hlo"), "--copies").stdout
    assert "this is not an HLO module" not in module
