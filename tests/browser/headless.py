"""Drives Debian's chromium headless: DOM dumps after scripts ran, and PNG screenshots decoded
with the standard library only (zlib), so the tests need no imaging package."""
import struct
import subprocess
import tempfile
import zlib

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--mute-audio",
         "--no-first-run", "--virtual-time-budget=3000"]


def _run(chromium, args):
    with tempfile.TemporaryDirectory() as profile:
        result = subprocess.run([chromium, *FLAGS, f"--user-data-dir={profile}", *args],
                                capture_output=True, text=True, timeout=120)
    return result


def dump_dom(chromium, url):
    result = _run(chromium, ["--dump-dom", url])
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def screenshot(chromium, url, path, width, height):
    result = _run(chromium, [f"--window-size={width},{height}", f"--screenshot={path}", url])
    assert result.returncode == 0, result.stderr[-2000:]
    return read_png(path)


def read_png(path):
    """(width, height, rows of (r, g, b) tuples) of an 8-bit RGB or RGBA PNG."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, header
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                predictor = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[i] = (line[i] + predictor) & 255
        rows.append([tuple(line[x * channels:x * channels + 3]) for x in range(width)])
        previous = line
    return width, height, rows
