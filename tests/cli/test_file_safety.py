"""Outputs appear whole or not at all; inputs are checked before they are read; progress only when
asked or on a terminal."""
import os
import pty
import random
import shutil
import signal
import subprocess
import time

import numpy as np
import pytest

TILED = "f32[2048,2048]{1,0:T(8,128)}"


def entries(directory):
    return sorted(os.listdir(directory))


def test_failed_conversion_leaves_no_file(tessera, tmp_path):
    (tmp_path / "in.bin").write_bytes(b"\0" * 12)
    for out in ("out.bin", "out.npy"):
        tessera.fails("convert", "--from", "f32[4]{0}", "--to", "f32[4]{0}",
                      str(tmp_path / "in.bin"), str(tmp_path / out))
    tessera.fails("draw", "f32[8,128]{1,0}", "-o", str(tmp_path / "picture.png"))
    assert entries(tmp_path) == ["in.bin"]


def test_failed_conversion_leaves_existing_output_untouched(tessera, tmp_path):
    (tmp_path / "in.bin").write_bytes(b"\0" * 12)
    (tmp_path / "out.npy").write_bytes(b"precious")
    tessera.fails("convert", "--from", "f32[4]{0}", "--to", "f32[4]{0}",
                  str(tmp_path / "in.bin"), str(tmp_path / "out.npy"))
    assert (tmp_path / "out.npy").read_bytes() == b"precious"
    assert entries(tmp_path) == ["in.bin", "out.npy"]


def test_success_replaces_output_and_leaves_no_temporary(tessera, tmp_path):
    np.save(tmp_path / "in.npy", np.arange(15, dtype=np.float32).reshape(3, 5))
    (tmp_path / "out.bin").write_bytes(b"x" * 1000)
    os.chmod(tmp_path / "out.bin", 0o640)
    tessera.run("convert", "--to", "f32[3,5]{0,1}", str(tmp_path / "in.npy"), str(tmp_path / "out.bin"))
    out = np.frombuffer((tmp_path / "out.bin").read_bytes(), np.float32)
    assert out.tolist() == np.arange(15, dtype=np.float32).reshape(3, 5).T.ravel().tolist()
    assert os.stat(tmp_path / "out.bin").st_mode & 0o777 == 0o640
    assert entries(tmp_path) == ["in.npy", "out.bin"]


def test_npu_image_of_another_size_is_refused_unless_overwrite(tessera, tmp_path):
    (tmp_path / "in.bin").write_bytes(np.arange(4, dtype=np.float32).tobytes())
    image = tmp_path / "image.bin"
    image.write_bytes(b"\x11" * (32 << 20))
    args = ["convert", "--from", "f32[1,1,2,2]{3,2,1,0}", "--to", "npu:bm1684x:1,1,2,2:f32:0",
            str(tmp_path / "in.bin"), str(image)]
    message = tessera.fails(*args)
    assert "33554432" in message and "16777216" in message and "--overwrite" in message
    assert image.read_bytes() == b"\x11" * (32 << 20)
    tessera.run(*args, "--overwrite")
    assert image.stat().st_size == 16 << 20


def test_npu_image_of_the_right_size_is_updated_not_replaced(tessera, tmp_path):
    (tmp_path / "in.bin").write_bytes(np.arange(4, dtype=np.float32).tobytes())
    image = tmp_path / "image.bin"
    image.write_bytes(b"\x11" * (16 << 20))
    tessera.run("convert", "--from", "f32[1,1,2,2]{3,2,1,0}", "--to", "npu:bm1684x:1,1,2,2:f32:0",
                str(tmp_path / "in.bin"), str(image))
    data = image.read_bytes()
    assert len(data) == 16 << 20 and data[-1] == 0x11
    assert data[:16] != b"\x11" * 16


@pytest.mark.parametrize("source", ["/dev/zero", "DIRECTORY"])
def test_inputs_without_a_known_size_are_refused(tessera, tmp_path, source):
    source = str(tmp_path) if source == "DIRECTORY" else source
    message = tessera.fails("convert", "--from", "u8[16]{0}", "--to", "u8[16]{0}", source,
                            str(tmp_path / "out.bin"))
    assert "regular file" in message or "directory" in message
    assert not (tmp_path / "out.bin").exists()


def test_wrong_size_input_is_refused_without_reading_it(tessera, tmp_path):
    big = tmp_path / "big.bin"
    with open(big, "wb") as f:
        f.truncate(2 << 30)  # sparse: reading it would take seconds and gigabytes
    message = tessera.fails("convert", "--from", "u8[16]{0}", "--to", "u8[16]{0}", str(big),
                            str(tmp_path / "out.bin"))
    assert "2147483648" in message


def test_sub_byte_last_byte_keeps_no_stale_bits(tessera, tmp_path):
    (tmp_path / "in.bin").write_bytes(bytes([1, 2, 3]))
    out = tmp_path / "out.bin"
    out.write_bytes(b"\xff\xff")
    tessera.run("convert", "--from", "s4[3]{0:E(8)}", "--to", "s4[3]{0:E(4)}", "--keep-padding",
                str(tmp_path / "in.bin"), str(out))
    assert out.read_bytes() == bytes([0x21, 0x03])


def large_conversion(tmp_path):
    source = np.arange(2048 * 2048, dtype=np.float32).reshape(2048, 2048)
    np.save(tmp_path / "in.npy", source)
    return [str(tmp_path / "in.npy"), str(tmp_path / "out.bin")]


def test_kill_at_random_moments_leaves_old_or_complete_output(tessera, tmp_path):
    files = large_conversion(tmp_path)
    subprocess.run([tessera.path, "convert", "--to", TILED, *files], check=True)
    complete = (tmp_path / "out.bin").read_bytes()
    old = b"old output"
    rng = random.Random(14)
    for attempt in range(6):
        (tmp_path / "out.bin").write_bytes(old)
        process = subprocess.Popen([tessera.path, "convert", "--to", TILED, *files])
        time.sleep(rng.uniform(0, 0.15))
        process.send_signal([signal.SIGKILL, signal.SIGTERM, signal.SIGINT][attempt % 3])
        process.wait()
        assert (tmp_path / "out.bin").read_bytes() in (old, complete)
        # Where the file system has no O_TMPFILE (overlayfs before Linux 6.6: a CI host) the
        # temporary is named, and after a SIGKILL a watchdog child removes it, within moments.
        for _ in range(200):
            if entries(tmp_path) == ["in.npy", "out.bin"]:
                break
            time.sleep(0.01)
        assert entries(tmp_path) == ["in.npy", "out.bin"], f"attempt {attempt}"


def test_full_disk_leaves_existing_output_untouched(tessera, tmp_path):
    mount = tmp_path / "small"
    mount.mkdir()
    if shutil.which("mount") is None or os.geteuid() != 0:
        pytest.skip("needs root and mount(8) to make a small tmpfs")
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here (no CAP_SYS_ADMIN in this container)")
    try:
        np.save(tmp_path / "in.npy", np.zeros((1024, 1024), np.float32))
        (mount / "out.bin").write_bytes(b"valid")
        message = tessera.fails("convert", "--to", "f32[1024,1024]{0,1}", str(tmp_path / "in.npy"),
                                str(mount / "out.bin"))
        assert "No space left" in message
        assert (mount / "out.bin").read_bytes() == b"valid"
        assert entries(mount) == ["out.bin"]
    finally:
        subprocess.run(["umount", str(mount)])


def test_progress_is_silent_without_terminal_and_shown_when_forced(tessera, tmp_path):
    np.save(tmp_path / "in.npy", np.zeros((64, 64), np.float32))
    args = ["convert", "--to", "f32[64,64]{1,0:T(8,128)}", str(tmp_path / "in.npy"),
            str(tmp_path / "out.bin")]
    assert tessera.run(*args).stderr == ""
    forced = tessera.run(*args, "--progress").stderr
    assert forced.count("32.0 KiB / 32.0 KiB") == 1 and "left" in forced
    assert tessera.run(*args, "--quiet").stderr == ""
    tessera.fails(*args, "--quiet", "--progress")


def run_on_terminal(command):
    """Runs `command` with stderr on a pseudo-terminal; returns what it wrote there."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=terminal)
    os.close(terminal)
    output = b""
    while True:
        try:
            chunk = os.read(controller, 4096)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
    process.wait()
    os.close(controller)
    return process.returncode, output.decode()


def test_progress_on_a_terminal_only_for_long_runs(tessera, tmp_path):
    np.save(tmp_path / "small.npy", np.zeros((64, 64), np.float32))
    code, shown = run_on_terminal([tessera.path, "convert", "--to", "f32[64,64]{1,0:T(8,128)}",
                                   str(tmp_path / "small.npy"), str(tmp_path / "out.bin")])
    assert code == 0 and shown == ""
    code, shown = run_on_terminal([tessera.path, "convert", "--quiet", "--to", TILED,
                                   *large_conversion(tmp_path)])
    assert code == 0 and shown == ""


def test_anonymous_memory_does_not_grow_with_the_file(tessera, tmp_path):
    # RLIMIT_DATA caps private writable memory (heap, anonymous mappings), not mapped files: a
    # 64 MiB conversion must fit in 40 MiB of it (before streaming it needed twice the file).
    import resource

    if os.environ.get("TESSERA_SANITIZED"):
        pytest.skip("ASan maps terabytes of shadow memory, so RLIMIT_DATA cannot bound a sanitized "
                    "binary; the release build runs this test")
    np.save(tmp_path / "in.npy", np.ones((4096, 4096), np.float32))

    def limit():
        resource.setrlimit(resource.RLIMIT_DATA, (40 << 20, 40 << 20))

    result = subprocess.run([tessera.path, "convert", "--threads", "2", "--to",
                             "f32[4096,4096]{1,0:T(8,128)}", str(tmp_path / "in.npy"),
                             str(tmp_path / "out.bin")], preexec_fn=limit, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out.bin").stat().st_size == 64 << 20


def test_progress_on_a_terminal_for_a_run_longer_than_a_second(tessera, tmp_path):
    np.save(tmp_path / "in.npy", np.ones((8192, 4096), np.float32))  # 128 MiB
    start = time.monotonic()
    code, shown = run_on_terminal([tessera.path, "convert", "--to", "f32[8192,4096]{1,0:T(8,128)}",
                                   str(tmp_path / "in.npy"), str(tmp_path / "out.bin")])
    elapsed = time.monotonic() - start
    assert code == 0
    if elapsed < 1.5:
        pytest.skip(f"the conversion took {elapsed:.2f} s, too short for a progress line")
    assert "128.0 MiB / 128.0 MiB" in shown and "left" in shown, shown
