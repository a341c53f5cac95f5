"""docs/reference/cli.md is generated from the command registry (`tessera cli-reference`, as the
man page and the completions are): it must be what the CLI prints now."""
import pathlib

REPO = pathlib.Path(__file__).resolve().parents[2]


def test_the_cli_reference_page_is_up_to_date(tessera):
    page = (REPO / "docs" / "reference" / "cli.md").read_text(encoding="utf-8")
    assert tessera.run("cli-reference").stdout == page, (
        "docs/reference/cli.md differs from `tessera cli-reference`: regenerate it with "
        "python3 tools/docs/generate.py --tessera build/release/tessera")


def test_every_visible_command_has_a_section(tessera):
    page = tessera.run("cli-reference").stdout
    for command in ("index", "unindex", "info", "convert", "explain", "explain npu", "draw", "npu plan"):
        assert f"\n## tessera {command}\n" in page
    assert "## tessera cli-reference" not in page and "## tessera man-page" not in page  # hidden


def test_the_npu_chip_page_is_the_chip_table(tessera):
    page = (REPO / "docs" / "reference" / "npu-chips.md").read_text(encoding="utf-8")
    assert tessera.run("npu", "chips").stdout == page, (
        "docs/reference/npu-chips.md differs from `tessera npu chips`: regenerate it with "
        "python3 tools/docs/generate.py --tessera build/release/tessera")
