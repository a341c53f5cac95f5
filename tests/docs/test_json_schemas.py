"""The JSON outputs' schemas (docs/reference/json/) are valid, cover every command that has
`--json`, are used by the docs' examples, and match what the CLI prints for a range of inputs
beyond the documented ones (test_doc_examples.py validates every documented `--json` command)."""
import json
import pathlib
import re
import shlex
import subprocess

import jsonschema
import pytest

import doc_examples
import json_outputs

REPO = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "inputs" / "fixtures"
MEMORY = REPO / "tests" / "fixtures" / "tpu_memory"
DEVICE = "npus=4,lmem=1024,align=128"
PLAN = {"device": f"{DEVICE},banks=4", "tensors": [
    {"name": "a", "shape": [1, 6, 1, 8], "dtype": "f32", "address": 0},
    {"name": "b", "shape": [1, 6, 1, 8], "dtype": "f32", "layout": "compact", "address": 64},
    {"name": "c", "shape": [1, 6, 1, 8], "dtype": "f32", "address": 0},
    {"name": "m", "rows": 2, "cols": 40, "w": "best", "dtype": "f32", "address": "auto"},
    {"name": "big", "shape": [4, 64, 16, 16], "dtype": "f32", "address": "auto"},
    {"name": "sliced", "shape": [2, 8, 4, 8], "dtype": "f32", "address": 640},
    {"name": "packed", "shape": [6, 5, 4, 5], "dtype": "s8", "mode": "4N", "address": "auto"}],
    "ops": [{"name": "op", "reads": ["a"], "writes": ["b", "c"]}]}
COMMANDS = [
    "info 'f32[3,5]{1,0:T(2,2)}'", "info 'f32[300,500]'", "info 'bf16[8,8]{1,0:T(2,4)(2,1,1,1)}'",
    "info 'f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}'", "info 'pred[64,512]{1,0:T(8,128)E(32)}' --target tpu",
    "info 's4[8,256]' --target tpu-v5e", "info 'f32[]'",
    "explain", "explain 's32[2048,1,128,128,4]'", "explain 'f32[1997,100,3]' --shards 8,1,1",
    "explain 'pred[64,512]'", "explain 'f32[10,100,3]'", "explain 'f32[3,5]{1,0:T(2,2)}'",
    "explain 'u8[3,7,1,2,5,9,4]'", "explain 'bf16[1,1,100]' --target tpu-v6e",
    "explain 'bf16[32,256]' --jax-layout 'Layout(major_to_minor=(0, 1), tiling=((8, 128), (2, 1)))'",
    f"explain {FIXTURES}/jax_7502_padding.txt", f"explain {FIXTURES}/hlo_tuple_fusion.hlo --all",
    f"explain {FIXTURES}/pytorch_xla_1965_log_prefixed.txt", f"explain {FIXTURES}/global_shapes.txt --shards 8,1,1",
    f"explain {FIXTURES}/traceback_repr_oom.txt", f"explain {FIXTURES}/libtpu_oom_traceback.txt",
    f"explain {FIXTURES}/libtpu_oom_after_optimizations.hlo --all",
    f"explain {FIXTURES}/colabfold_62_padding.txt",
    f"explain {MEMORY}/v5e_mlp_train/after_optimizations.txt",
    f"explain {MEMORY}/v6e_lm_head_oom/after_optimizations-buffer-assignment.txt",
    f"explain npu --device {DEVICE} --shape 2,3,4,5 --dtype f32 --address 2048",
    f"explain npu --device {DEVICE} --rows 2 --cols 40 --dtype f32 --address 0 --w 15",
    f"explain npu --device bm1684 --shape 6,5,4,5 --dtype s8 --address 0 --mode 4N",
    f"explain npu --device {DEVICE},banks=4 --tensor in:shape=1,6,1,8:dtype=f32:address=0 "
    "--tensor out:shape=1,6,2,8:dtype=f32:address=auto --op conv:reads=in:writes=out",
    f"npu info --device {DEVICE} --shape 2,3,4,5 --dtype f32 --address 2048",
    f"npu info --device {DEVICE} --shape 6,5,4,5 --dtype s8 --address 0 --mode 4N",
    f"npu info --device {DEVICE} --shape 3,5,4,5 --dtype s16 --address 0 --mode 2N --layout compact",
    f"npu info --device {DEVICE} --shape 2,3,4,5 --dtype f32 --address 3968 --layout compact",
    f"npu info --device {DEVICE} --shape 2,5,3,4 --dtype f32 --address 0 --layout strides=120,56,16,2",
    f"npu matrix --device {DEVICE} --rows 2 --cols 40 --dtype f32 --address 0 --w 15",
    f"npu matrix --device {DEVICE} --rows 2 --cols 40 --dtype f32 --address 0 --best-w 1,31 0,0",
    "npu plan PLAN",
]


def test_every_schema_is_a_valid_draft_2020_12_schema():
    for path in json_outputs.schema_files():
        jsonschema.Draft202012Validator.check_schema(json.loads(path.read_text(encoding="utf-8")))


def json_commands_of_the_cli() -> list[str]:
    """`tessera X Y` for every command whose options include --json, from the generated CLI page."""
    text = (REPO / "docs" / "reference" / "cli.md").read_text(encoding="utf-8")
    commands = []
    for section in re.split(r"\n## ", text)[1:]:
        name = section.split("\n")[0].strip()
        if re.search(r"^\| `--json`", section, re.MULTILINE):
            commands.append(name)
    return commands


def test_every_command_with_json_output_has_a_schema():
    names = {p.name.removesuffix(".schema.json") for p in json_outputs.schema_files()}
    commands = json_commands_of_the_cli()
    assert commands, "docs/reference/cli.md lists no --json option: is it generated?"
    missing = [c for c in commands if "-".join(c.split()[1:]) not in names]
    assert not missing, (f"commands with --json but no schema in docs/reference/json/: {missing} "
                         "(tools/docs/draft_schema.py drafts one from real outputs)")


def test_every_schema_is_used_by_a_documented_example():
    used = set()
    for page in doc_examples.documented_pages():
        for block in doc_examples.blocks_of(page):
            if block.language != "console" or block.not_run:
                continue
            for command in doc_examples.commands_of(block):
                first = command.text.split(" | ")[0].strip()
                if first.startswith("tessera ") and "--json" in first.split():
                    used.add(json_outputs.schema_name_for(shlex.split(first)))
    unused = {p.name.removesuffix(".schema.json") for p in json_outputs.schema_files()} - used
    assert not unused, f"schemas no page shows an example of: {sorted(unused)}"


@pytest.mark.parametrize("command", COMMANDS)
def test_output_matches_its_schema(command, tessera_cli, tmp_path):
    if "PLAN" in command:
        (tmp_path / "plan.json").write_text(json.dumps(PLAN))
        command = command.replace("PLAN", str(tmp_path / "plan.json"))
    line = f"tessera {command} --json"
    result = subprocess.run([tessera_cli, *shlex.split(command), "--json"], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    json_outputs.validate_command_output(line, result.stdout)
