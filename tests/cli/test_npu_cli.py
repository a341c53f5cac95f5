"""`tessera npu locate|place|matrix|info`: the CLI contract, on the spec's examples."""
import pytest

SPEC = "npus=4,lmem=1024,align=128"


def place(tessera, *args):
    return tessera.lines("npu", "place", "--device", SPEC, *args)


def test_locate_the_four_addresses(tessera):
    lines = tessera.lines("npu", "locate", "--device", SPEC, "340", "1472", "2300", "0xC10")
    assert lines == ["0 340", "1 448", "2 252", "3 16"]


def test_locate_on_presets(tessera):
    assert tessera.lines("npu", "locate", "--device", "bm1684", str(3 * 512 * 1024 + 7)) == ["3 7"]
    assert tessera.lines("npu", "locate", "--device", "bm1684x", str(63 * 256 * 1024)) == ["63 0"]
    assert tessera.lines("npu", "locate", "--device", "bm1688", str(32 * 128 * 1024 - 1)) == ["31 131071"]


def test_place_stride_example(tessera):
    args = ["--shape", "2,5,3,4", "--dtype", "fp32", "--address", "0", "--layout", "strides=120,56,16,2"]
    assert place(tessera, *args, "0,0,0,0", "1,4,2,3", "0,1,0,1") == ["0 0", "0 856", "1 8"]


def test_place_aligned_and_compact_at_npu_two(tessera):
    common = ["--shape", "2,3,4,5", "--dtype", "f32", "--address", "2048"]
    assert place(tessera, *common, "--layout", "aligned", "0,2,0,0", "1,0,3,4") == ["0 128", "2 332"]
    assert place(tessera, *common, "--layout", "compact", "0,2,0,0", "1,0,3,4") == ["0 80", "2 236"]


def test_place_scatter_x_plus_two_at_last_npu(tessera):
    args = ["--shape", "2,6,4,8", "--dtype", "f32", "--address", "3072", "--layout", "aligned"]
    lines = place(tessera, *args, *[f"1,{c},0,0" for c in range(6)])
    assert lines == ["3 384", "0 512", "1 512", "2 512", "3 512", "0 640"]


def test_place_storage_modes(tessera):
    four_n = ["--shape", "6,5,4,5", "--dtype", "s8", "--address", "0", "--layout", "aligned", "--mode", "4N"]
    assert place(tessera, *four_n, "4,0,0,0", "5,0,0,0", "5,4,3,4") == ["0 256", "0 257", "0 461"]
    two_n = ["--shape", "3,5,4,5", "--dtype", "int16", "--address", "0", "--layout", "aligned", "--mode", "2N"]
    assert place(tessera, *two_n, "1,0,0,0", "2,0,0,0") == ["0 2", "0 256"]
    two_ic = ["--shape", "3,5,4,5", "--dtype", "f32", "--address", "0", "--layout", "aligned", "--mode", "2IC"]
    assert place(tessera, *two_ic, "1,0,0,0", "2,1,0,0") == ["0 4", "1 512"]


def test_info_json(tessera):
    info = tessera.json("npu", "info", "--device", SPEC, "--shape", "6,5,4,5", "--dtype", "u8",
                        "--address", "0", "--layout", "aligned", "--mode", "4N", "--json")
    assert info["channels_per_npu"] == 2
    assert info["strides"] == [64, 32, 5, 1]
    assert info["stored_shape"] == [2, 5, 4, 5]
    assert info["stored_dtype"] == "u8x4"
    assert len(info["bytes_per_npu"]) == 4
    assert info["bytes_per_npu"][0] == (64 + 32 + 20) * 4
    assert info["fits"] is True
    assert info["npus_touched"] == [0, 1, 2, 3]
    assert info["dummy_bytes"] == 200
    assert info["wasted_bytes"] == 4 * info["reserved_bytes_per_npu"] - info["data_bytes"]


def test_info_reports_a_tensor_that_does_not_fit(tessera):
    info = tessera.json("npu", "info", "--device", SPEC, "--shape", "4,1,4,5", "--dtype", "f32",
                        "--address", "640", "--json")
    assert info["fits"] is False
    assert info["overrun_bytes"] == 80
    text = "\n".join(tessera.lines("npu", "info", "--device", SPEC, "--shape", "4,1,4,5", "--dtype", "f32",
                                   "--address", "640"))
    assert "by 80 bytes" in text


def test_info_gdma_layout_is_the_chips_default_copy(tessera):
    args = ["npu", "info", "--device", SPEC, "--shape", "2,3,4,5", "--dtype", "f32", "--address", "2048", "--json"]
    assert tessera.json(*args)["strides"] == [64, 32, 5, 1]
    assert tessera.json(*args, "--layout", "gdma")["strides"] == [64, 32, 5, 1]  # custom: the spec
    # BM1684X's default copy counts ceil(C/X) channel rows from NPU 0, BM1684's ceil((Q+C)/X)
    # (tests/fixtures/npu_oracle/).
    at_npu_2 = ["--shape", "2,63,4,5", "--dtype", "f32", "--json", "--layout", "gdma"]
    bm1684x = tessera.json("npu", "info", "--device", "bm1684x", "--address", str(2 * 262144), *at_npu_2)
    assert bm1684x["strides"] == [32, 32, 5, 1] and bm1684x["layout"] == "gdma"
    bm1684 = tessera.json("npu", "info", "--device", "bm1684", "--address", str(2 * 524288), *at_npu_2)
    assert bm1684["strides"] == [64, 32, 5, 1]
    error = tessera.fails(*args, "--gdma-row-stride")
    assert "--layout gdma" in error


@pytest.mark.parametrize("width,channels,row_bytes,last", [
    (40, 1, 256, 40), (20, 2, 128, 20), (10, 4, 128, 10), (8, 5, 256, 8), (15, 3, 128, 10), (6, 7, 256, 4)])
def test_matrix_six_widths(tessera, width, channels, row_bytes, last):
    report = tessera.json("npu", "matrix", "--device", SPEC, "--rows", "2", "--cols", "40", "--dtype", "f32",
                          "--address", "0", "--w", str(width), "--json")
    assert report["w"] == width
    assert report["channels"] == channels
    assert report["row_bytes_per_npu"] == row_bytes
    assert report["last_channel_columns"] == last
    assert report["fits"] is True


def test_matrix_best_w_and_places(tessera):
    args = ["npu", "matrix", "--device", SPEC, "--rows", "2", "--cols", "40", "--dtype", "f32", "--address", "0"]
    report = tessera.json(*args, "--best-w", "--json")
    assert report["w"] == report["best_w"] == 10
    assert report["channels"] == 4 and report["channels_per_npu"] == 1
    assert report["bytes_per_npu"] == [168, 168, 168, 168]
    assert tessera.lines(*args, "--w", "15", "1,31", "0,0") == ["2 132", "0 0"]
    assert tessera.json(*args, "--w", "15", "--json", "1,31")["places"] == [{"npu": 2, "byte_offset": 132}]
    gdma = ["npu", "matrix", "--device", SPEC, "--rows", "2", "--cols", "40", "--dtype", "f32", "--address", "3072",
            "--w", "20"]
    assert tessera.lines(*gdma, "1,20") == ["0 384"]
    assert "--layout gdma" in tessera.fails(*gdma, "--gdma-row-stride", "1,20")
    # BM1684's matrix copy counts ceil(C/X) rows, its successors' ceil((Q+C)/X).
    bm1684 = ["npu", "matrix", "--device", "bm1684", "--rows", "2", "--cols", "40", "--dtype", "f32",
              "--address", str(63 * 524288), "--w", "20"]
    assert tessera.lines(*bm1684, "1,20") == ["0 256"]
    bm1684x = ["npu", "matrix", "--device", "bm1684x", "--rows", "2", "--cols", "40", "--dtype", "f32",
               "--address", str(63 * 262144), "--w", "20"]
    assert tessera.lines(*bm1684x, "1,20") == ["0 384"]


TENSOR = ["--shape", "2,3,4,5", "--dtype", "f32", "--address", "0", "--layout", "aligned"]


@pytest.mark.parametrize("args,fragment", [
    (["npu", "locate", "--device", SPEC, "4096"], "outside local memory"),
    (["npu", "locate", "--device", SPEC, "-1"], ""),
    (["npu", "locate", "--device", SPEC, "12z"], "not an integer"),
    (["npu", "locate", "--device", "bm9", "0"], "unknown device"),
    (["npu", "locate", "--device", "npus=4,lmem=1024", "0"], "missing 'align='"),
    (["npu", "locate", "--device", "npus=4,lmem=1024,align=128,foo=1", "0"], "unknown device key 'foo'"),
    (["npu", "locate", "--device", "npus=0,lmem=1024,align=128", "0"], "must be positive"),
    (["npu", "locate", "--device", "npus=four,lmem=1024,align=128", "0"], "not an integer"),
    (["npu", "place", "--device", SPEC, "--shape", "2,3,4,5", "--dtype", "f32", "--address", "64", "0,0,0,0"],
     "multiple of 128"),
    (["npu", "place", "--device", SPEC, "--shape", "2,3,4,5", "--dtype", "f32", "--address", "2",
      "--layout", "compact", "0,0,0,0"], "4-byte aligned"),
    (["npu", "place", "--device", SPEC, "--shape", "4,1,4,5", "--dtype", "f32", "--address", "640", "0,0,0,0"],
     "runs past the end of local memory by 80 bytes"),
    (["npu", "place", "--device", SPEC, *TENSOR, "--mode", "4N", "0,0,0,0"], "4N needs an 8-bit type"),
    (["npu", "place", "--device", SPEC, "--shape", "2,3,4,5", "--dtype", "s8", "--address", "0", "--mode", "2N",
      "0,0,0,0"], "2N needs a 16-bit type"),
    (["npu", "place", "--device", SPEC, "--shape", "2,3,4,5", "--dtype", "f16", "--address", "0", "--mode", "2IC",
      "0,0,0,0"], "2IC needs f32"),
    (["npu", "place", "--device", SPEC, "--shape", "1,1,2,4", "--dtype", "f32", "--address", "0",
      "--layout", "strides=8,8,2,1", "0,0,0,0"], "strides make elements overlap"),
    (["npu", "place", "--device", SPEC, "--shape", "2,0,4,5", "--dtype", "f32", "--address", "0", "0,0,0,0"],
     "dimension C is 0"),
    (["npu", "place", "--device", SPEC, "--shape", "2,-3,4,5", "--dtype", "f32", "--address", "0", "0,0,0,0"],
     "dimension C is -3"),
    (["npu", "place", "--device", SPEC, *TENSOR, "2,0,0,0"], "outside [0, 2)"),
    (["npu", "place", "--device", SPEC, *TENSOR, "0,0,0"], "index has 3 components"),
    (["npu", "place", "--device", SPEC, *TENSOR, "0,a,0,0"], "not an integer"),
    (["npu", "place", "--device", SPEC, "--shape", "2,3,4,5", "--dtype", "f32", "--address", "0",
      "--layout", "weird", "0,0,0,0"], "unknown layout"),
    (["npu", "place", "--device", SPEC, *TENSOR, "--mode", "3N", "0,0,0,0"], "unknown storage mode"),
    (["npu", "place", "--device", SPEC, "--shape", "2,3,4", "--dtype", "f32", "--address", "0", "0,0,0,0"],
     "N,C,H,W"),
    (["npu", "place", "--device", SPEC, "--shape", "2,3,4,5", "--dtype", "f99", "--address", "0", "0,0,0,0"],
     "unknown element type"),
    (["npu", "info", "--device", SPEC, "--shape", "2,3,4,5", "--dtype", "f32", "--address", "99999"],
     "outside local memory"),
    (["npu", "matrix", "--device", SPEC, "--rows", "2", "--cols", "40", "--dtype", "f32", "--address", "0",
      "--w", "0"], "W is 0"),
    (["npu", "matrix", "--device", SPEC, "--rows", "2", "--cols", "40", "--dtype", "f32", "--address", "0",
      "--w", "41"], "W is 41"),
    (["npu", "matrix", "--device", SPEC, "--rows", "2", "--cols", "40", "--dtype", "f32", "--address", "0"],
     "--w W or --best-w"),
    (["npu", "matrix", "--device", SPEC, "--rows", "2", "--cols", "40", "--dtype", "f32", "--address", "0",
      "--w", "4", "--best-w"], ""),
    (["npu", "matrix", "--device", SPEC, "--rows", "2", "--cols", "40", "--dtype", "f32", "--address", "0",
      "--w", "4", "2,0"], "outside the 2 x 40 matrix"),
    (["npu", "matrix", "--device", SPEC, "--rows", "2", "--cols", "40", "--dtype", "f32", "--address", "0",
      "--w", "4", "1,2,3"], "write i,j"),
    (["npu", "matrix", "--device", SPEC, "--rows", "0", "--cols", "40", "--dtype", "f32", "--address", "0",
      "--best-w"], "rows is 0"),
    (["npu", "matrix", "--device", SPEC, "--rows", "8", "--cols", "40", "--dtype", "f32", "--address", "0",
      "--w", "40", "0,0"], "runs past the end of local memory"),
])
def test_errors(tessera, args, fragment):
    message = tessera.fails(*args)
    assert fragment in message
