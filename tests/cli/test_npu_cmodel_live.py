"""tessera against Sophgo's own C models, live: fresh random copies every run (the seed is printed;
TESSERA_CMODEL_SEED replays it) on every chip, each element's place from `tessera npu place` /
`tessera npu matrix` compared with where the chip's C model put it, and the chip's constants,
stride functions and channel counts with `tessera npu info`.

Runs when the tpu-mlir wheel's C models are in the cache (`bash tools/npu_oracle/regenerate.sh
--fetch-only`; scripts/test.sh fetches them when it can); skipped otherwise with the reason. The
fixture tests (tests/npu/cmodel_fixture_test.cpp) check the same offline.
"""

from __future__ import annotations

import os
import pathlib
import random
import sys
import time

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python" / "tessera"))
sys.path.insert(0, str(REPO / "tools" / "npu_oracle"))

import cases  # noqa: E402
import cmodel  # noqa: E402

# conftest.py points XDG_CACHE_HOME at a temporary folder; the C models are in the user's cache.
os.environ.setdefault(
    "TESSERA_CMODEL_DIR",
    str(pathlib.Path.home() / ".cache" / "tessera" / f"tpu-mlir-{cmodel.TPU_MLIR_VERSION}" / "tpu_mlir" / "lib"))

TYPES = {8: "s8", 16: "s16", 32: "f32"}
LAYOUTS = {"default": "gdma", "aligned": "aligned", "compact": "compact"}


def _seed() -> int:
    return int(os.environ.get("TESSERA_CMODEL_SEED", time.time_ns() % 2**31))


@pytest.fixture(scope="module", params=cmodel.CHIPS)
def chip(request):
    why = cmodel.available(request.param)
    if why:
        pytest.skip(why)
    with cmodel.CModel(request.param) as model:
        constants = cases.model_constants(model)
        probe = model.ask(cases.w_stride_request(constants))
        yield request.param, model, dict(constants, unit_w_stride="error" in probe)


def _tessera_addresses(tessera, name: str, constants: dict, request: dict) -> list:
    lmem = constants["local_memory_bytes"]
    dtype = TYPES[request["bits"]]
    if request["op"] == "matrix":
        indices = [f"{i},{j}" for i in range(request["rows"]) for j in range(request["cols"])]
        lines = tessera.lines("npu", "matrix", "--device", name, "--rows", str(request["rows"]),
                              "--cols", str(request["cols"]), "--dtype", dtype,
                              "--address", str(request["address"]),
                              "--w", str(request["cols_per_channel"]), *indices)
    else:
        n, c, h, w = request["shape"]
        indices = [f"{a},{b},{d},{e}" for a in range(n) for b in range(c) for d in range(h)
                   for e in range(w)]
        kind = request["kind"]
        layout = LAYOUTS.get(kind) or "strides=" + ",".join(map(str, request["dst_stride"]))
        lines = tessera.lines("npu", "place", "--device", name,
                              "--shape", ",".join(map(str, request["shape"])), "--dtype", dtype,
                              "--address", str(request["address"]), "--layout", layout, *indices)
    places = [tuple(int(v) for v in line.split()[:2]) for line in lines]
    return [npu * lmem + offset for npu, offset in places]


def test_every_element_of_fresh_copies_is_where_the_c_model_puts_it(tessera, chip):
    name, model, constants = chip
    seed = _seed()
    print(f"TESSERA_CMODEL_SEED={seed} ({name})")
    rng = random.Random(f"{seed}-{name}")
    requests = cases.sweep(rng, dict(constants, api=cmodel.LIBRARIES[name][1]),
                           copies_per_kind=2, matrices=3, strides=0)[1:]
    compared = 0
    mismatches = []
    for request in requests:
        request = cases.resolve(model, request)
        ask = {k: v for k, v in request.items() if k not in ("kind", "dst_stride_from")}
        answer = model.ask(ask)
        assert "error" not in answer, f"seed {seed}: {name} refused {request}: {answer}"
        lmem = constants["local_memory_bytes"]
        places = answer["places"]
        theirs = [-1 if places[i] < 0 else places[i] * lmem + places[i + 1]
                  for i in range(0, len(places), 2)]
        ours = _tessera_addresses(tessera, name, constants, request)
        compared += len(ours)
        if ours != theirs:
            wrong = sum(a != b for a, b in zip(ours, theirs))
            mismatches.append(f"{wrong} of {len(ours)} misplaced: {request}")
    print(f"{name}: {len(requests)} copies, {compared} elements compared")
    assert not mismatches, f"seed {seed} on {name}:\n" + "\n".join(mismatches[:10])


def test_constants_strides_and_channel_counts_equal_the_c_model(tessera, chip):
    name, model, constants = chip
    seed = _seed()
    print(f"TESSERA_CMODEL_SEED={seed} ({name})")
    rng = random.Random(f"{seed}-{name}-strides")
    info = tessera.json("npu", "info", "--device", name, "--shape", "1,1,1,1", "--dtype", "f32",
                        "--address", "0", "--json")
    device = info["device"]
    assert (device["npus"], device["local_memory_bytes"], device["banks"]) == (
        constants["npus"], constants["local_memory_bytes"], constants["banks"])
    assert set(constants["eu_bytes"].values()) == {device["alignment_bytes"]}
    lmem = constants["local_memory_bytes"]
    for request in cases.stride_requests(rng, constants["npus"], 15):
        answer = model.ask(request)
        if request["op"] == "channels_per_npu":
            continue  # the info report below carries channels_per_npu for the same start
        bits = request.get("bits", 32)
        report = tessera.json("npu", "info", "--device", name,
                              "--shape", ",".join(map(str, request["shape"])),
                              "--dtype", TYPES[bits], "--address", str(request["start"] * lmem),
                              "--layout", "aligned" if request["op"] == "aligned_stride" else "compact",
                              "--json")
        assert report["strides"] == answer["stride"], f"seed {seed} on {name}: {request}"
        expected_rows = model.ask({"op": "channels_per_npu", "start": request["start"],
                                   "channels": request["shape"][1]})["channels_per_npu"]
        assert report["channels_per_npu"] == expected_rows, f"seed {seed} on {name}: {request}"


def test_convert_writes_the_bytes_the_c_model_holds_after_its_copy(tessera, chip, tmp_path):
    """`tessera convert` into npu:CHIP:... against the C model's local memory after its GDMA copy
    of the same bytes: equal wherever the copy wrote. Everywhere else (padding, other NPUs) both
    leave the bytes as they were: a new image file is zeros there."""
    name, model, constants = chip
    seed = _seed()
    print(f"TESSERA_CMODEL_SEED={seed} ({name})")
    rng = random.Random(f"{seed}-{name}-convert")
    compared = 0
    for kind in ("default", "aligned", "compact"):
        for bits in cases.WIDTHS:
            request = cases.resolve(model, cases.copy_request(rng, constants, kind, bits))
            request.pop("src_stride", None)
            n, c, h, w = request["shape"]
            data = rng.randbytes(n * c * h * w * bits // 8)
            source = tmp_path / "x.bin"
            source.write_bytes(data)
            image_path = tmp_path / f"lmem-{kind}-{bits}.bin"  # new: convert updates an image
            dtype = TYPES[bits]
            shape = ",".join(map(str, request["shape"]))
            layout = LAYOUTS[kind]
            tessera.run("convert", "--from", f"{dtype}[{n},{c},{h},{w}]", "--to",
                        f"npu:{name}:{shape}:{dtype}:{request['address']}:{layout}",
                        str(source), str(image_path))
            ask = {"op": "copy_bytes", "bits": bits, "shape": request["shape"],
                   "address": request["address"], "data": data.hex()}
            if kind != "default":
                ask["dst_stride"] = request["dst_stride"]
            answer = model.ask(ask)
            assert "error" not in answer, f"seed {seed}: {name} refused {ask}: {answer}"
            image = image_path.read_bytes()
            assert len(image) == constants["npus"] * constants["local_memory_bytes"]
            written = answer["written"]
            ours = bytes(image[p] for p in written)
            assert ours == bytes.fromhex(answer["bytes"]), f"seed {seed} on {name}: {request}"
            assert image.count(0) == len(image) - sum(1 for p in written if image[p] != 0), (
                f"seed {seed} on {name}: tessera wrote outside the bytes the chip's copy wrote")
            compared += len(written)
    print(f"{name}: {compared} bytes of local memory compared")


def test_check_with_cmodel_agrees_on_every_chip(tessera, chip):
    name, _, constants = chip
    lmem = constants["local_memory_bytes"]
    place = tessera.run("npu", "place", "--device", name, "--shape", f"2,{constants['npus'] + 3},3,5",
                        "--dtype", "f32", "--address", str(5 * lmem), "--layout", "gdma",
                        "--check-with-cmodel", "1,2,0,4")
    assert place.stdout.splitlines()[-1].endswith(f"all {2 * (constants['npus'] + 3) * 15} elements "
                                                  "where tessera puts them")
    info = tessera.json("npu", "info", "--device", name, "--shape", "3,9,2,2", "--dtype", "s16",
                        "--address", str(lmem - 4 * 1024), "--layout", "compact", "--json",
                        "--check-with-cmodel")
    assert info["cmodel_check"]["agrees"] is True and info["cmodel_check"]["chip"] == name
    matrix = tessera.json("npu", "matrix", "--device", name, "--rows", "3", "--cols", "100",
                          "--dtype", "f32", "--address", str(3 * lmem), "--w", "7", "--json",
                          "--check-with-cmodel")
    assert matrix["cmodel_check"]["elements"] == 300 and matrix["cmodel_check"]["agrees"] is True


def test_check_with_cmodel_says_how_to_get_the_c_models(tessera, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSERA_CMODEL_DIR", str(tmp_path / "nowhere"))
    error = tessera.fails("npu", "place", "--device", "bm1684x", "--shape", "1,2,1,1", "--dtype", "f32",
                          "--address", "0", "--check-with-cmodel", "0,1,0,0")
    assert "tools/npu_oracle/regenerate.sh --fetch-only" in error and "tpu-mlir" in error
    error = tessera.fails("npu", "place", "--device", "npus=4,lmem=1024,align=128", "--shape", "1,2,1,1",
                          "--dtype", "f32", "--address", "0", "--check-with-cmodel", "0,1,0,0")
    assert "needs a chip preset" in error


def test_4n_int8_elements_are_where_bm1684s_own_conversion_reads_them(tessera):
    """4N against the chip: each int8 element is written where `tessera npu place --mode 4N` puts
    it, BM1684's own BDC conversion (okk_bdc_4N_int8_to_fp32) turns the tensor into f32, and every
    element must come back as the value written at tessera's place. (Only BM1684's OKKernel API
    converts 4N; the TPU-Kernel chips have no 4N, 2N or 2IC conversion to ask.)"""
    why = cmodel.available("bm1684")
    if why:
        pytest.skip(why)
    seed = _seed()
    print(f"TESSERA_CMODEL_SEED={seed} (bm1684, 4N)")
    rng = random.Random(f"{seed}-4N")
    lmem = 512 * 1024
    with cmodel.CModel("bm1684") as model:
        for _ in range(3):
            shape = [rng.randint(1, 9), rng.randint(1, 140), rng.randint(1, 6), rng.randint(1, 20)]
            # Any start NPU: channels that run past the last NPU wrap to NPU 0.
            start = rng.choice([0, 4096, rng.randrange(64) * lmem])
            _check_4n(tessera, model, shape, start, rng, seed)


def _check_4n(tessera, model, shape, start, rng, seed):
    """Writes random int8 values where tessera places a 4N tensor and checks that BM1684's own
    conversion reads every one of them back."""
    lmem = 512 * 1024
    n, c, h, w = shape
    indices = [f"{a},{b},{d},{e}" for a in range(n) for b in range(c) for d in range(h)
               for e in range(w)]
    lines = tessera.lines("npu", "place", "--device", "bm1684", "--shape",
                          ",".join(map(str, shape)), "--dtype", "s8", "--address", str(start),
                          "--mode", "4N", *indices)
    places = [npu * lmem + offset for npu, offset in (map(int, line.split()[:2]) for line in lines)]
    values = [rng.randint(-128, 127) for _ in places]
    answer = model.ask({"op": "from_4n_int8", "shape": shape, "source": start,
                        "destination": lmem // 4, "work": lmem // 2, "positions": places,
                        "values": values, "signed": True})
    assert "values" in answer, answer
    wrong = [i for i, (got, put) in enumerate(zip(answer["values"], values)) if got != put]
    assert not wrong, (f"seed {seed}: {shape} at {start}: {len(wrong)} of {len(values)} elements "
                       f"read elsewhere, first {indices[wrong[0]]}")


def test_4n_int8_channels_past_the_last_npu(tessera):
    """The case that showed the chip's rule: 8 channels from NPU 58 wrap to NPUs 0 and 1, and the
    chip steps batch groups by ceil(C/X) = 1 channel row, not by ceil((Q+C)/X) = 2."""
    why = cmodel.available("bm1684")
    if why:
        pytest.skip(why)
    with cmodel.CModel("bm1684") as model:
        _check_4n(tessera, model, [9, 8, 1, 5], 58 * 512 * 1024, random.Random(1), 0)
