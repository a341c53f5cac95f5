"""CONTRIBUTING.md's checklists for adding a TPU generation and an NPU chip, exercised: the test
build (cmake -DTESSERA_TEST_TPU_GENERATION=ON -DTESSERA_TEST_NPU_CHIP=ON; scripts/test.sh makes it)
adds one record to the generation table, tpu-vtest with tpu-v7x's facts, and one to the chip table,
testchip with bm1684x's; every command that takes --target (or --device, or an npu: operand) must
answer for them as for their twins, under their own names, with nothing else edited. Other builds
skip these tests."""
import json

import pytest

FAKE, TWIN = "tpu-vtest", "tpu-v7x"
SHAPE = "bf16[64,3]"


@pytest.fixture
def test_build(tessera):
    names = [g["name"] for g in tessera.json("tpu-generations")["generations"]]
    if FAKE not in names:
        pytest.skip("not the test build: configure with -DTESSERA_TEST_TPU_GENERATION=ON")
    return tessera


def both(tessera, *args):
    """The command's stdout for the made-up generation and, with its name replaced, for its twin."""
    answers = [tessera.run(*args, "--target", target).stdout for target in (FAKE, TWIN)]
    return answers[0], answers[1].replace(TWIN, FAKE)


def test_the_table_help_and_list_name_it(test_build):
    assert FAKE in test_build.run("explain", "--list-targets").stdout
    for command in ("index", "unindex", "info", "explain", "draw", "diff", "convert"):
        assert FAKE in " ".join(test_build.run(command, "--help").stdout.split()), command


@pytest.mark.parametrize("args", [
    ("info", SHAPE, "--json"),
    ("index", SHAPE, "2,1"),
    ("unindex", SHAPE, "130"),
    ("explain", SHAPE, "--json"),
    ("explain", SHAPE, "--xla-era", "2020", "--json"),
    ("diff", SHAPE + "{1,0}", SHAPE + "{0,1}", "--json"),
])
def test_every_command_answers_as_for_its_twin(test_build, args):
    fake, twin = both(test_build, *args)
    if "--json" in args:  # diff's copy estimate is timed on this host: not an answer to compare
        fake, twin = untimed(json.loads(fake)), untimed(json.loads(twin))
    assert fake == twin


def untimed(value):
    """`value` without the keys that hold a time or a speed measured now (and the words that
    quote the speed)."""
    if isinstance(value, dict):
        return {k: untimed(v) for k, v in value.items() if "second" not in k and k != "basis"}
    if isinstance(value, list):
        return [untimed(v) for v in value]
    return value


def test_draw_and_convert_answer_as_for_its_twin(test_build, tmp_path):
    import numpy as np
    lines = []
    for target in (FAKE, TWIN):
        out = test_build.run("draw", SHAPE, "--target", target, "-o", str(tmp_path / f"{target}.svg"))
        lines.append(out.stdout.replace(str(tmp_path / f"{target}.svg"), "PICTURE"))
    assert lines[0] == lines[1].replace(TWIN, FAKE)
    np.save(tmp_path / "in.npy", np.arange(64 * 3, dtype=np.float32).reshape(64, 3))
    for target in (FAKE, TWIN):
        test_build.run("convert", "--to", "f32[64,3]", "--target", target, str(tmp_path / "in.npy"),
                       str(tmp_path / f"{target}.bin"))
    assert (tmp_path / f"{FAKE}.bin").read_bytes() == (tmp_path / f"{TWIN}.bin").read_bytes()


CHIP, CHIP_TWIN = "testchip", "bm1684x"


@pytest.fixture
def chip_build(tessera):
    if CHIP not in tessera.run("npu", "chips").stdout:
        pytest.skip("not the test build: configure with -DTESSERA_TEST_NPU_CHIP=ON")
    return tessera


def test_the_chip_table_and_help_name_the_chip(chip_build):
    table = chip_build.run("npu", "chips").stdout
    row = next(line for line in table.splitlines() if line.startswith(f"| {CHIP} |"))
    twin = next(line for line in table.splitlines() if line.startswith(f"| {CHIP_TWIN} |"))
    assert row == twin.replace(CHIP_TWIN, CHIP, 1)
    for command in ("info", "place", "matrix", "locate"):
        assert CHIP in chip_build.run("npu", command, "--help").stdout, command


@pytest.mark.parametrize("args", [
    ("npu", "info", "--shape", "2,100,7,9", "--dtype", "f16", "--address", "0x400", "--json"),
    ("npu", "info", "--shape", "2,100,7,9", "--dtype", "s8", "--address", "0", "--layout", "gdma",
     "--json"),
    ("npu", "place", "--shape", "2,100,7,9", "--dtype", "f32", "--address", "0x40", "1,77,6,8"),
    ("npu", "matrix", "--rows", "5", "--cols", "300", "--dtype", "f32", "--address", "0",
     "--best-w", "--json", "4,299"),
    ("npu", "locate", "0x12345"),
])
def test_every_npu_command_answers_as_for_its_twin(chip_build, args):
    answers = [chip_build.run(*args, "--device", device).stdout for device in (CHIP, CHIP_TWIN)]
    assert answers[0] == answers[1].replace(CHIP_TWIN, CHIP)


def test_convert_into_the_chip_writes_its_twins_image(chip_build, tmp_path):
    import numpy as np
    np.save(tmp_path / "in.npy", np.arange(2 * 70 * 3 * 5, dtype=np.float32).reshape(2, 70, 3, 5))
    for device in (CHIP, CHIP_TWIN):
        chip_build.run("convert", "--to", f"npu:{device}:2,70,3,5:f32:0x100", str(tmp_path / "in.npy"),
                       str(tmp_path / f"{device}.img"))
    assert (tmp_path / f"{CHIP}.img").read_bytes() == (tmp_path / f"{CHIP_TWIN}.img").read_bytes()
