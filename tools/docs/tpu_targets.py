"""The places made from the TPU generation table (src/tpu/generations.cpp, printed by the hidden
`tessera tpu-generations`): the targets table of docs/reference/tpu-targets.md and the topologies of
python/tessera/oracle.py. Each lies between a BEGIN and an END marker line; generate.py rewrites
what is between them, and tests/cli/test_target_cli.py checks it is what the table says."""
import json
import pathlib
import subprocess

REPO = pathlib.Path(__file__).resolve().parents[2]
DOCS_PAGE = REPO / "docs" / "reference" / "tpu-targets.md"
ORACLE = REPO / "python" / "tessera" / "oracle.py"
BEGIN = "generated from the TPU generation table by tools/docs/generate.py: do not edit"
END = "end of the generated part"


def table(tessera: str) -> dict:
    return json.loads(subprocess.run([tessera, "tpu-generations"], check=True, capture_output=True,
                                     text=True).stdout)


def docs_table(data: dict) -> str:
    rows = ["| target | device kind | deviceless topology used to observe it | HBM libtpu reports |",
            "|---|---|---|---|"]
    rows += [f"| `{g['name']}` | {g['device_kind']} | `{g['topology']}` | {g['hbm']} |"
             for g in data["generations"]]
    usual = ", ".join(f"`{name}` (era {era})" for era, name in data["tpu"].items())
    rows += [f"| `tpu` | the era's usual generation: {usual} | | |",
             "| `none` | the layout exactly as written | | |"]
    return "\n".join(rows) + "\n"


def oracle_topologies(data: dict) -> str:
    lines = ["TOPOLOGIES = {"]
    lines += [f'    "{g["name"]}": "{g["topology"]}",' for g in data["generations"]]
    lines += ["}", f'ALIASES = {{"tpu": "{data["tpu"]["2026"]}"}}']
    return "\n".join(lines) + "\n"


def replaced(text: str, comment: tuple[str, str], generated: str) -> str:
    """`text` with the lines between its BEGIN and END markers (comment lines) replaced."""
    begin, end = (f"{comment[0]}{marker}{comment[1]}\n" for marker in (BEGIN, END))
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    return head + begin + generated + end + tail


def pages(tessera: str) -> dict[pathlib.Path, str]:
    """Every file made from the table, as it should read now."""
    data = table(tessera)
    return {
        DOCS_PAGE: replaced(DOCS_PAGE.read_text(encoding="utf-8"), ("<!-- ", " -->"), docs_table(data)),
        ORACLE: replaced(ORACLE.read_text(encoding="utf-8"), ("# ", ""), oracle_topologies(data)),
    }
