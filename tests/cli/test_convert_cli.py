"""`tessera convert`: real data through layouts, checked against NumPy implementations of the
tiled layout spec's pad -> reshape -> transpose (independent of the library's index maps)."""
import numpy as np
import pytest


def tile_2d(array, tile, fill=0):
    """XLA's T(a,b) on a row-major 2-d array, as the spec describes it: pad, reshape, transpose."""
    rows, cols = array.shape
    a, b = tile
    padded = np.full((-(-rows // a) * a, -(-cols // b) * b), fill, dtype=array.dtype)
    padded[:rows, :cols] = array
    return padded.reshape(padded.shape[0] // a, a, padded.shape[1] // b, b).transpose(0, 2, 1, 3).copy()


@pytest.mark.parametrize("rows,cols", [(3, 5), (16, 256), (17, 130), (1, 1)])
def test_npy_to_tiled_matches_numpy_and_round_trips(tessera, tmp_path, rows, cols):
    data = np.random.default_rng(rows * cols).standard_normal((rows, cols)).astype(np.float32)
    np.save(tmp_path / "in.npy", data)
    shape = f"f32[{rows},{cols}]{{1,0:T(8,128)}}"
    tessera.run("convert", "--to", shape, str(tmp_path / "in.npy"), str(tmp_path / "tiled.bin"))
    tiled = np.fromfile(tmp_path / "tiled.bin", dtype=np.float32)
    assert np.array_equal(tiled, tile_2d(data, (8, 128)).ravel())
    tessera.run("convert", "--from", shape, str(tmp_path / "tiled.bin"), str(tmp_path / "back.npy"))
    assert np.array_equal(np.load(tmp_path / "back.npy"), data)


@pytest.mark.parametrize("rows,cols", [(17, 130), (1024, 2048)])
def test_fsync_writes_the_same_bytes_and_replaces_an_existing_output(tessera, tmp_path, rows, cols):
    # --fsync only changes when the bytes reach the disk (fsync of the file and its directory, and
    # the settled output written back while converting): the output must be identical, and an
    # existing OUT replaced either way.
    data = np.random.default_rng(rows).standard_normal((rows, cols)).astype(np.float32)
    np.save(tmp_path / "in.npy", data)
    shape = f"f32[{rows},{cols}]{{1,0:T(8,128)}}"
    (tmp_path / "synced.bin").write_bytes(b"old contents")
    tessera.run("convert", "--fsync", "--to", shape, "--overwrite", str(tmp_path / "in.npy"),
                str(tmp_path / "synced.bin"))
    tessera.run("convert", "--to", shape, str(tmp_path / "in.npy"), str(tmp_path / "cached.bin"))
    expected = tile_2d(data, (8, 128)).ravel().tobytes()
    assert (tmp_path / "synced.bin").read_bytes() == expected
    assert (tmp_path / "cached.bin").read_bytes() == expected
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cached.bin", "in.npy", "synced.bin"]


def test_fill_value_goes_into_padding(tessera, tmp_path):
    data = np.arange(15, dtype=np.float32).reshape(3, 5)
    np.save(tmp_path / "in.npy", data)
    tessera.run("convert", "--to", "f32[3,5]{1,0:T(2,2)}", "--fill", "-1.5", str(tmp_path / "in.npy"),
                str(tmp_path / "out.bin"))
    got = np.fromfile(tmp_path / "out.bin", dtype=np.float32)
    assert np.array_equal(got, tile_2d(data, (2, 2), fill=-1.5).ravel())
    assert got[17] == 13  # the spec's Figure 1: element (2,3) at offset 17


def test_keep_padding_leaves_existing_bytes(tessera, tmp_path):
    np.save(tmp_path / "in.npy", np.ones((3, 5), dtype=np.float32))
    out = tmp_path / "out.bin"
    np.full(24, 7, dtype=np.float32).tofile(out)
    tessera.run("convert", "--to", "f32[3,5]{1,0:T(2,2)}", "--keep-padding", str(tmp_path / "in.npy"), str(out))
    got = np.fromfile(out, dtype=np.float32)
    assert sorted(set(got.tolist())) == [1.0, 7.0] and (got == 7).sum() == 9


def test_transpose_between_raw_files(tessera, tmp_path):
    data = np.random.default_rng(1).integers(-100, 100, (33, 70)).astype(np.int16)
    data.tofile(tmp_path / "in.bin")
    tessera.run("convert", "--from", "s16[33,70]{1,0}", "--to", "s16[33,70]{0,1}", "--threads", "2",
                str(tmp_path / "in.bin"), str(tmp_path / "out.bin"))
    assert np.array_equal(np.fromfile(tmp_path / "out.bin", dtype=np.int16), data.T.ravel())


def test_bf16_packing_tile_from_u2_npy(tessera, tmp_path):
    data = np.random.default_rng(2).integers(0, 65535, (16, 128)).astype(np.uint16)
    np.save(tmp_path / "in.npy", data)
    tessera.run("convert", "--to", "bf16[16,128]{1,0:T(8,128)(2,1)}", str(tmp_path / "in.npy"), str(tmp_path / "out.bin"))
    got = np.fromfile(tmp_path / "out.bin", dtype=np.uint16)
    # (2,1) inside each 8x128 tile: rows 2k and 2k+1 interleave element by element.
    want = tile_2d(data, (8, 128)).reshape(2, 4, 2, 128).transpose(0, 1, 3, 2).ravel()
    assert np.array_equal(got, want)


def test_pred_packs_low_bits_first(tessera, tmp_path):
    data = np.random.default_rng(3).integers(0, 2, (4, 37)).astype(np.bool_)
    np.save(tmp_path / "in.npy", data)
    tessera.run("convert", "--to", "pred[4,37]{1,0:E(1)}", str(tmp_path / "in.npy"), str(tmp_path / "bits.bin"))
    got = np.fromfile(tmp_path / "bits.bin", dtype=np.uint8)
    assert np.array_equal(got, np.packbits(data.ravel(), bitorder="little"))
    tessera.run("convert", "--from", "pred[4,37]{1,0:E(1)}", str(tmp_path / "bits.bin"), str(tmp_path / "back.npy"))
    assert np.array_equal(np.load(tmp_path / "back.npy"), data)


def test_s4_unpacks_with_sign_extension(tessera, tmp_path):
    data = np.array([[-8, -1, 0, 7, 3]], dtype=np.int8)
    np.save(tmp_path / "in.npy", data)
    tessera.run("convert", "--to", "s4[1,5]{1,0:E(4)}", str(tmp_path / "in.npy"), str(tmp_path / "nibbles.bin"))
    assert np.fromfile(tmp_path / "nibbles.bin", dtype=np.uint8).tolist() == [0xF8, 0x70, 0x03]
    tessera.run("convert", "--from", "s4[1,5]{1,0:E(4)}", str(tmp_path / "nibbles.bin"), str(tmp_path / "back.npy"))
    assert np.array_equal(np.load(tmp_path / "back.npy"), data)


def test_plan_names_the_kernels_and_writes_nothing(tessera, tmp_path):
    np.save(tmp_path / "in.npy", np.zeros((1024, 1024), dtype=np.float32))
    out = tmp_path / "out.bin"
    lines = tessera.lines("convert", "--plan", "--threads", "2", "--to", "f32[1024,1024]{0,1}",
                          str(tmp_path / "in.npy"), str(out))
    assert lines[0].startswith("f32[1024,1024]{1,0} -> f32[1024,1024]{0,1}: ")
    assert lines[0].endswith(" on 2 threads")
    assert lines[1].startswith("transpose 2 axes [") and "simd" in lines[1], lines
    assert not out.exists()
    # IN is still checked: a file of the wrong size is refused as in a conversion.
    (tmp_path / "short.bin").write_bytes(bytes(12))
    error = tessera.fails("convert", "--plan", "--from", "f32[2,2]{1,0}", "--to", "f32[2,2]{0,1}",
                          str(tmp_path / "short.bin"), str(out))
    assert "holds 12 bytes of data but f32[2,2]{1,0} takes 16 bytes" in error
    assert not out.exists()


def test_errors(tessera, tmp_path):
    np.save(tmp_path / "in.npy", np.zeros((3, 5), dtype=np.float32))
    (tmp_path / "short.bin").write_bytes(b"\0" * 59)
    (tmp_path / "junk.npy").write_bytes(b"not numpy at all")
    (tmp_path / "s8.bin").write_bytes(b"\1" * 15)
    npy, out = str(tmp_path / "in.npy"), str(tmp_path / "out.bin")
    assert "takes 60 bytes" in tessera.fails("convert", "--from", "f32[3,5]", "--to", "f32[3,5]{0,1}",
                                             str(tmp_path / "short.bin"), out)
    assert "dimensions" in tessera.fails("convert", "--from", "f32[3,5]", "--to", "f32[5,3]", npy, out)
    assert "element type" in tessera.fails("convert", "--to", "f64[3,5]{0,1}", "--from", "f32[3,5]", npy, out)
    assert "dtype" in tessera.fails("convert", "--to", "s32[3,5]{0,1}", npy, out)
    assert "cannot read" in tessera.fails("convert", "--from", "f32[3,5]", "--to", "f32[3,5]", str(tmp_path / "missing"), out)
    assert ".npy" in tessera.fails("convert", "--to", "f32[3,5]", str(tmp_path / "junk.npy"), out)
    assert "row-major" in tessera.fails("convert", "--from", "f32[3,5]{0,1}", "--to", "f32[3,5]", npy, out)
    assert "--from is required" in tessera.fails("convert", "--to", "f32[3,5]", str(tmp_path / "short.bin"), out)
    assert "out of range [-128, 127]" in tessera.fails("convert", "--to", "s8[3,5]", "--from", "s8[3,5]", "--fill", "300",
                                      str(tmp_path / "s8.bin"), out)
    tessera.fails("convert", "--to", "f32[3,5]{0,1}", "--fill", "1", "--keep-padding", npy, out)
    tessera.fails("convert", "--to", "f32[3,5]{0,1}", "--threads", "0", npy, out)
    tessera.fails("convert", "--to", "f32[3,5]{0,1:T(", npy, out)


@pytest.mark.parametrize("source, destination", [("s4[1]{0:E(4)}", "s4[1]{0:E(65536)}"),
                                                 ("s4[1]{0:E(65536)}", "s4[1]{0:E(4)}"),
                                                 ("s4[1]{0:E(4)}", "s4[1]{0:E(65)}")])
def test_storage_wider_than_64_bits_is_refused_not_overflowed(tessera, tmp_path, source, destination):
    """Regression (security): these once copied E(n)/8 bytes through an 8-byte stack word."""
    (tmp_path / "in.bin").write_bytes(b"\x07" * (-(-int(source.split("E(")[1].rstrip(")}")) // 8)))
    message = tessera.fails("convert", "--from", source, "--to", destination, str(tmp_path / "in.bin"),
                            str(tmp_path / "out.bin"))
    assert "wider than 64 bits" in message
    assert not (tmp_path / "out.bin").exists()


def npu_aligned_offsets(n, c, h, w, start_npu, npus=4, lmem=1024):
    """Byte offsets in the local memory image of an f32 aligned tensor at byte 0 of NPU
    `start_npu` (NPU spec, "128-Byte Aligned Layout": C stride rounds H*W*4 up to 128 bytes)."""
    c_stride = -(-h * w * 4 // 128) * 128 // 4
    rows = -(-(start_npu + c) // npus)
    index = np.indices((n, c, h, w)).reshape(4, -1)
    channel = start_npu + index[1]
    element = index[0] * rows * c_stride + (channel // npus) * c_stride + index[2] * w + index[3]
    return ((channel % npus) * lmem + element * 4).reshape(n, c, h, w), c_stride, rows


def test_npu_aligned_round_trip_and_padding(tessera, tmp_path):
    n, c, h, w = 2, 3, 4, 5
    data = np.random.default_rng(4).standard_normal((n, c, h, w)).astype(np.float32)
    np.save(tmp_path / "in.npy", data)
    image = tmp_path / "lmem.bin"
    np.full(4 * 1024, 0xAA, dtype=np.uint8).tofile(image)  # another tensor's bytes, say
    npu = "npu:npus=4,lmem=1024,align=128:2,3,4,5:f32:2048:aligned"
    tessera.run("convert", "--to", npu, "--fill", "0x7fc00000", str(tmp_path / "in.npy"), str(image))
    got = np.fromfile(image, dtype=np.uint8)
    offsets, c_stride, rows = npu_aligned_offsets(n, c, h, w, start_npu=2)
    as_f32 = lambda o: got[o:o + 4].view(np.float32)[0]
    assert all(as_f32(o) == v for o, v in zip(offsets.ravel(), data.ravel()))
    # Channel slots of the tensor's rows on NPUs 0 and 1 before its first channel (and after its
    # last) are its padding; the bytes between H*W and the aligned C stride are not its own.
    slot = lambda npu, n_, row, e: npu * 1024 + ((n_ * rows + row) * c_stride + e) * 4
    assert got[slot(0, 0, 0, 0):slot(0, 0, 0, 0) + 4].view(np.uint32)[0] == 0x7fc00000
    assert got[slot(1, 1, 1, 3):slot(1, 1, 1, 3) + 4].view(np.uint32)[0] == 0x7fc00000
    assert (got[slot(2, 0, 0, h * w):slot(2, 0, 1, 0)] == 0xAA).all()
    assert (got[3 * 1024 + n * rows * c_stride * 4:] == 0xAA).all()  # past the footprint
    tessera.run("convert", "--from", npu, str(image), str(tmp_path / "back.npy"))
    assert np.array_equal(np.load(tmp_path / "back.npy"), data)
    assert "npu:" in tessera.fails("convert", "--to", "npu:bm1684:2,3", str(tmp_path / "in.npy"), str(image))
    tessera.fails("convert", "--to", "npu:bm1684:2,3,4,6:f32:0", str(tmp_path / "in.npy"), str(image))


def test_convert_says_the_layout_it_wrote_and_how_to_read_it_back(tessera, tmp_path):
    # A device array: the compiler orders f32[1024,3] {0,1}, which reading back as {1,0} would miss.
    np.save(tmp_path / "x.npy", np.arange(1024 * 3, dtype=np.float32).reshape(1024, 3))
    tiled = tmp_path / "x.tiled"
    lines = tessera.lines("convert", "--target", "tpu", "--to", "f32[1024,3]", str(tmp_path / "x.npy"), str(tiled))
    assert lines == [f"wrote {tiled} (16384 bytes): f32[1024,3]{{0,1:T(4,128)}}",
                     "read it back with --from 'f32[1024,3]{0,1:T(4,128)}'"]
    # The operand printed reads the file back, byte for byte.
    operand = lines[1].split("--from ", 1)[1].strip("'")
    back = tmp_path / "back.npy"
    out = tessera.lines("convert", "--from", operand, str(tiled), str(back))
    assert out[0].startswith(f"wrote {back} (") and "a .npy file" in out[0]
    assert (np.load(back) == np.load(tmp_path / "x.npy")).all()


def test_a_float32_npy_into_a_bf16_layout_says_how_to_cast_it(tessera, tmp_path):
    np.save(tmp_path / "w.npy", np.ones((8, 128), np.float32))
    error = tessera.fails("convert", "--to", "bf16[8,128]{1,0:T(8,128)(2,1)}", str(tmp_path / "w.npy"),
                          str(tmp_path / "w.tiled"))
    assert "has dtype '<f4'" in error and "expected '<V2'" in error
    assert "it holds f32" in error and "ml_dtypes.bfloat16" in error and "or write the layout with f32" in error
    assert error.count("\n") == 1
