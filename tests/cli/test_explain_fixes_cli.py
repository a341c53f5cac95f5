"""`tessera explain` fixes: the `pad` kind, uneven shards, and equivalent alternatives
grouped everywhere (SHAPE, PATH, the built-in example), checked through the JSON keys."""
import itertools

KEYS = ("kind", "layout", "size_bytes", "bytes_saved", "change", "alternatives")


def no_repetition(suggestions):
    """One suggestion per (kind, size) and every layout named once, alternatives included."""
    kinds = [(s["kind"], s["size_bytes"]) for s in suggestions]
    assert len(kinds) == len(set(kinds)), kinds
    layouts = [layout for s in suggestions for layout in [s["layout"], *s["alternatives"]]]
    assert len(layouts) == len(set(layouts)), layouts


def test_shape_suggestions_are_grouped(tessera):
    # Its order written (an intermediate's): a device array of these dims needs no reorder.
    out = tessera.json("explain", "s32[2048,1,128,128,4]{4,3,2,1,0}", "--json", "--max-suggestions", "1000")
    suggestions = out["suggestions"]
    for s in suggestions:
        assert all(key in s for key in KEYS)
        assert s["kind"] == "reorder"
    no_repetition(suggestions)
    assert suggestions[0]["size_bytes"] == 512 * 2**20 and len(suggestions[0]["alternatives"]) > 10
    # Every other order that takes no more memory is listed exactly once, in 2 lines (the sizes
    # tpu-v5e gives them): 512 MiB, and the equivalents of 16 GiB. The 24 orders that take more
    # than 16 GiB are no suggestion.
    listed = sum(1 + len(s["alternatives"]) for s in suggestions)
    assert listed == len(list(itertools.permutations(range(5)))) - 1 - 24 and len(suggestions) == 2
    assert all(s["bytes_saved"] >= 0 for s in suggestions)
    sizes = [s["size_bytes"] for s in suggestions]
    assert sizes == sorted(sizes) and len(sizes) == len(set(sizes))
    # The program changes beside them: the reshape to 512 MiB, said once.
    fixes = out["fixes"]
    assert fixes[0]["kind"] == "reshape" and fixes[0]["change"] == "x.reshape(2048, 1, 128, 512)"
    assert fixes[0]["size_bytes"] == 512 * 2**20
    no_repetition(fixes)
    text = "\n".join(tessera.lines("explain", "s32[2048,1,128,128,4]{4,3,2,1,0}"))
    assert "equivalent layouts of the same size" in text
    assert text.count("x.reshape(2048, 1, 128, 512)") == 1


def test_flatten_beats_the_pad_of_a_shape(tessera):
    # Today's compiler: the flatten takes 12 KiB, less than any pad (16 KiB).
    out = tessera.json("explain", "f32[10,100,3]", "--json")
    best = out["fixes"][0]
    assert best["kind"] == "reshape" and best["change"] == "x.reshape(-1)"
    assert best["layout"] == "f32[3000]{0:T(1024)}" and best["size_bytes"] == 12 * 1024
    assert best["bytes_saved"] == out["size_bytes"] - best["size_bytes"]
    assert all(f["kind"] != "pad" for f in out["fixes"])
    # The 2020 compilers kept the written order: there, the pad to 30 x 128 wins.
    out = tessera.json("explain", "f32[10,100,3]", "--json", "--xla-era", "2020")
    pad = out["fixes"][0]
    assert pad["kind"] == "pad" and pad["layout"] == "f32[30,128]{1,0:T(8,128)}"
    assert pad["size_bytes"] == 16 * 1024
    assert pad["change"] == "jnp.pad(x, ((0, 0), (0, 28), (0, 0))).reshape(30, 128)"
    assert all(s["size_bytes"] > pad["size_bytes"] for s in out["suggestions"])
    assert "pad to f32[30,128]" in "\n".join(tessera.lines("explain", "f32[10,100,3]", "--xla-era", "2020"))


def test_no_pad_for_a_vocabulary_the_tiles_pad_anyway(tessera):
    for args in ([], ["--shards", "1,8"]):
        out = tessera.json("explain", "f32[4096,50257]", "--json", *args)
        assert all(f["kind"] != "pad" for f in out["fixes"])


def test_uneven_shards_in_a_file_and_a_shape(tessera, tmp_path):
    log = tmp_path / "log.txt"
    log.write_text("Shape: f32[1997,100,3]\n")
    for era, first in (("2026", "reshape"), ("2020", "pad")):
        for out in (tessera.json("explain", str(log), "--shards", "8,1,1", "--json", "--xla-era", era)["arrays"][0],
                    tessera.json("explain", "f32[1997,100,3]", "--shards", "8,1,1", "--json", "--xla-era", era)):
            assert out["shard_dims"] == [250, 100, 3]
            fixes = out["suggestions"] if "input_shape" in out else out["fixes"]
            assert fixes[0]["kind"] == first
            if era == "2026":
                # Each shard flattened: 296 KiB, less than the pad's 300 KiB.
                assert fixes[0]["size_bytes"] == 296 * 1024 and all(f["kind"] != "pad" for f in fixes)
                assert fixes[0]["change"] == "x.reshape(-1)  # per shard, e.g. inside shard_map"
                continue
            pad = fixes[0]
            assert pad["layout"] == "f32[600,128]{1,0:T(8,128)}" and pad["size_bytes"] == 300 * 1024
            assert pad["change"].startswith("jnp.pad(x, ((0, 51), (0, 0), (0, 0))) (every shard 256")
            assert pad["change"].endswith("per shard, e.g. in shard_map: x.reshape(600, 128)")
    tessera.fails("explain", "f32[1997,100,3]", "--shards", "8,1")
    tessera.fails("explain", "f32[1997,100,3]", "--shards", "0,1,1")


def test_built_in_example_offers_the_reshape_once(tessera):
    out = tessera.json("explain", "--json")
    everywhere = [out] + out["examples"] + out["sample_report"]["arrays"]
    found = False
    for item in everywhere:
        no_repetition(item["suggestions"])
        no_repetition(item.get("fixes", []))
        for fix in item.get("fixes", []) + item["suggestions"]:
            if fix.get("kind") == "reshape" and fix["size_bytes"] == 512 * 2**20:
                found = True
    assert found
    text = "\n".join(tessera.lines("explain"))
    assert "x.reshape(2048, 1, 128, 512)" in text
