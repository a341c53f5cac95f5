"""CONTRIBUTING.md's checklist for adding a TPU generation, exercised: the test build
(cmake -DTESSERA_TEST_TPU_GENERATION=ON) adds one record to the generation table, tpu-vtest with
tpu-v7x's facts, and every command that takes --target must answer for it as for tpu-v7x, under its
own name, with nothing else edited. Other builds skip these tests."""
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
    assert fake == twin


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
