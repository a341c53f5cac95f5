"""`tessera explain MODULE`: the program's memory as the TPU compiler counts it, against the
compiler's own memory_analysis() figures for every fixture of tests/fixtures/tpu_memory
(tools/tpu_oracle/memory_programs.py), from the module alone, beside its buffer assignment, and
from the buffer assignment alone."""
import json
import pathlib
import shutil

import pytest

MEMORY = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "tpu_memory"
FIGURES = json.loads((MEMORY / "memory_analysis.json").read_text())["programs"]
EXACT = ("argument_size_in_bytes", "output_size_in_bytes", "alias_size_in_bytes")
TARGETS = {"v4": "tpu-v4", "v5e": "tpu-v5e", "v6e": "tpu-v6e", "v7x": "tpu-v7x"}


def target_of(fixture):
    return TARGETS[fixture.split("_")[0]]


def close(ours, compiler, peak):
    return abs(ours - compiler) <= 0.01 * (compiler if compiler > 0 else peak)


@pytest.mark.parametrize("fixture", sorted(k for k, v in FIGURES.items() if "memory_analysis" in v))
def test_module_alone_and_beside_its_dump_match_memory_analysis(tessera, tmp_path, fixture):
    compiler = FIGURES[fixture]["memory_analysis"]
    peak = sum(compiler[k] for k in EXACT[:2]) - compiler["alias_size_in_bytes"] + compiler["temp_size_in_bytes"]
    alone = tmp_path / "module.hlo"
    shutil.copyfile(MEMORY / fixture / "after_optimizations.txt", alone)
    for path, basis in ((alone, "schedule"), (MEMORY / fixture / "after_optimizations.txt", "buffer_assignment")):
        ours = tessera.json("explain", str(path), "--json", "--target", target_of(fixture))["memory_analysis"]
        assert ours["basis"] == basis
        for key in EXACT:
            assert ours[key] == compiler[key], (fixture, basis, key)
        assert close(ours["temp_size_in_bytes"], compiler["temp_size_in_bytes"], peak), (fixture, basis, ours)
        assert close(ours["peak_bytes"], peak, peak), (fixture, basis)
        assert ours["peak_bytes"] == (ours["argument_size_in_bytes"] + ours["output_size_in_bytes"]
                                      - ours["alias_size_in_bytes"] + ours["temp_size_in_bytes"])


def test_buffer_assignment_alone(tessera):
    path = MEMORY / "v5e_mlp_train" / "after_optimizations-buffer-assignment.txt"
    ours = tessera.json("explain", str(path), "--json", "--target", "tpu-v5e")["memory_analysis"]
    compiler = FIGURES["v5e_mlp_train"]["memory_analysis"]
    assert ours["basis"] == "buffer_assignment"
    assert [ours[k] for k in EXACT] == [compiler[k] for k in EXACT]
    spaces = {s["name"]: s for s in ours["memory_spaces"]}
    assert spaces["smem"]["temp_size_in_bytes"] == 28  # SMEM scalars: 4 bytes each, untiled


def test_text_opens_with_the_hbm_story(tessera):
    path = MEMORY / "v5e_mlp_train" / "after_optimizations.txt"
    lines = tessera.lines("explain", str(path), "--target", "tpu-v5e")
    assert lines[0].startswith("HBM, as the compiler counts it")
    text = "\n".join(lines)
    assert text.index("aliased") < text.index("arrays read")  # padding detail after
    assert "of 15.75 GiB HBM on tpu-v5e: fits" in text


def test_out_of_memory_module_names_the_logits_with_their_line(tessera, tmp_path):
    module = tmp_path / "m.after_optimizations.txt"
    shutil.copyfile(MEMORY / "v5e_lm_head_oom" / "after_optimizations.txt", module)
    text = "\n".join(tessera.lines("explain", str(module), "--target", "tpu-v5e"))
    assert "DOES NOT FIT" in text
    ours = tessera.json("explain", str(module), "--json", "--target", "tpu-v5e")["memory_analysis"]
    first, second = ours["live_at_peak"][:2]
    assert first["layout"].startswith("f32[524288,32003]") and first["kind"] == "output"
    assert second["layout"].startswith("bf16[524288,32003]") and second["kind"] == "temporary"
    assert second["source"].split(":")[0].endswith("memory_programs.py") and "dot_general" in second["op_name"]
    assert ours["peak_bytes"] > 15.75 * 2**30
    for fix in ours["fixes"]:
        assert fix["saves_at_peak_bytes"] <= next(
            b["size_bytes"] for b in ours["live_at_peak"] if b["name"] == fix["buffer"])
    assert ours["peak_after_fixes_bytes"] == ours["peak_bytes"] - ours["fixes_saving_bytes"]


def test_other_inputs_have_no_memory_analysis(tessera, tmp_path):
    log = tmp_path / "log.txt"
    log.write_text("buffer f32[1001,256]{1,0} here\n")
    assert tessera.json("explain", str(log), "--json")["memory_analysis"] is None


def test_malformed_buffer_assignment_is_a_clear_error(tessera, tmp_path):
    bad = tmp_path / "x-buffer-assignment.txt"
    bad.write_text("BufferAssignment:\nallocation 0: thread-local:\n")
    result = tessera.run("explain", str(bad), check=False)
    assert result.returncode == 2
    assert result.stderr.startswith("error: ") and "line 2" in result.stderr


def _report_allocations(path):
    """(total bytes of each memory space, the sizes of the default space's allocations of
    arrays, largest first) of a *-memory-usage-report.txt; the sizes as it prints them."""
    units = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}
    totals, sizes, color = {}, [], None
    for line in path.read_text().splitlines():
        if line.startswith("Memory Space:"):
            color = int(line.split("(color=")[1].rstrip(")"))
        elif line.startswith("Total bytes:"):
            totals[color] = int(line.split()[2])
        elif color == 0 and line.count(";") == 4 and not line.strip().startswith("cumulative"):
            size, shapes = line.split(";")[1].strip(), line.split(";")[4].strip()
            if not shapes.startswith("("):  # a tuple's index table
                number = size.rstrip("BKMGi")
                sizes.append(float(number) * units[size[len(number):]])
    return totals, sorted(sizes, reverse=True)


@pytest.mark.parametrize("generation", sorted(TARGETS))
def test_out_of_memory_culprits_are_the_compilers_largest_allocations(tessera, generation):
    folder = MEMORY / f"{generation}_lm_head_oom"
    totals, sizes = _report_allocations(folder / "after_optimizations-memory-usage-report.txt")
    ours = tessera.json("explain", str(folder / "after_optimizations.txt"), "--json", "--target",
                        TARGETS[generation])["memory_analysis"]
    first = [b["size_bytes"] for b in ours["live_at_peak"][:3]]
    assert [abs(a - b) <= 0.005 * b for a, b in zip(first, sizes[:3])] == [True] * 3, (first, sizes[:3])
    hbm = next(s for s in ours["memory_spaces"] if s["name"] == "hbm")
    assert hbm["allocated_bytes"] == totals[0]  # the report beside the module is read


def _dump(folder, prefix, fixture):
    for name in ("after_optimizations.txt", "after_optimizations-buffer-assignment.txt",
                 "after_optimizations-memory-usage-report.txt"):
        shutil.copyfile(MEMORY / fixture / name, folder / f"{prefix}.{name}")


def test_dump_folder_explains_its_largest_program(tessera, tmp_path):
    _dump(tmp_path, "module_0001.jit_mlp_train_step.cl_1", "v5e_mlp_train")
    _dump(tmp_path, "module_0004.jit_lm_head.cl_2", "v5e_lm_head_oom")
    ours = tessera.json("explain", str(tmp_path), "--json", "--target", "tpu-v5e")
    assert ours["input"].endswith("module_0004.jit_lm_head.cl_2.after_optimizations.txt")
    assert ours["memory_analysis"]["basis"] == "buffer_assignment"
    text = tessera.lines("explain", str(tmp_path), "--target", "tpu-v5e")
    assert text[0] == f"{tmp_path}: the largest program of the dump, {ours['input']}"
    assert text[1].startswith("HBM, as the compiler counts it")


def test_module_and_the_compilers_files_named_together(tessera, tmp_path):
    module = tmp_path / "module.hlo"  # not beside its files: they are named
    shutil.copyfile(MEMORY / "v5e_mlp_train" / "after_optimizations.txt", module)
    files = [str(MEMORY / "v5e_mlp_train" / f"after_optimizations-{k}.txt")
             for k in ("memory-usage-report", "buffer-assignment")]
    ours = tessera.json("explain", str(module), *files, "--json", "--target", "tpu-v5e")["memory_analysis"]
    compiler = FIGURES["v5e_mlp_train"]["memory_analysis"]
    assert ours["basis"] == "buffer_assignment"
    assert [ours[k] for k in EXACT] == [compiler[k] for k in EXACT]
    totals, _ = _report_allocations(MEMORY / "v5e_mlp_train" / "after_optimizations-memory-usage-report.txt")
    assert {s["memory_space"]: s["allocated_bytes"] for s in ours["memory_spaces"]} == {
        s: totals[s] for s in (0, 1, 2)}
    alone = tessera.json("explain", str(module), "--json", "--target", "tpu-v5e")["memory_analysis"]
    assert alone["basis"] == "schedule" and "allocated_bytes" not in alone["memory_spaces"][0]


@pytest.mark.parametrize("arguments, words", [
    (["{report}"], "give its module or buffer assignment with it"),
    (["{empty}"], "holds no *.after_optimizations.txt"),
    (["{module}", "{module}"], "two HLO modules given"),
    (["{module}", "{log}"], "is neither an HLO module nor"),
    (["f32[8,128]", "{module}"], "more than one argument"),
])
def test_files_that_are_not_one_dump_are_refused(tessera, tmp_path, arguments, words):
    log = tmp_path / "log.txt"
    log.write_text("nothing here\n")
    (tmp_path / "empty").mkdir()
    paths = {"report": MEMORY / "v5e_mlp_train" / "after_optimizations-memory-usage-report.txt",
             "module": MEMORY / "v5e_mlp_train" / "after_optimizations.txt",
             "empty": tmp_path / "empty", "log": log}
    first, *rest = [a.format(**{k: str(v) for k, v in paths.items()}) for a in arguments]
    result = tessera.run("explain", first, *rest, check=False)
    assert result.returncode == 2, result.stdout
    assert result.stderr.startswith("error: ") and words in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1
