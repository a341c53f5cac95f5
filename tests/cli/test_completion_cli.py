"""`tessera completion bash|zsh|fish` and the man page: generated from the command registry, so
every command `--help` lists is completed and documented."""
import re
import shutil
import subprocess

import pytest

TOP_LEVEL = ["index", "unindex", "info", "npu", "convert", "explain", "draw", "completion"]


def complete_in_bash(script, words):
    """The candidates bash offers after `words` (the last one is being completed)."""
    line = " ".join(words)
    program = (f"{script}\nCOMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; compopt() {{ :; }}\n"
               "_tessera; printf '%s\\n' \"${COMPREPLY[@]}\"")
    result = subprocess.run(["bash", "-c", program], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def test_bash_completes_commands_subcommands_and_options(tessera):
    script = tessera.run("completion", "bash").stdout
    assert set(TOP_LEVEL) <= set(complete_in_bash(script, ["tessera", "''"]))
    assert complete_in_bash(script, ["tessera", "np"]) == ["npu"]
    assert set(complete_in_bash(script, ["tessera", "npu", "''"])) >= {"locate", "place", "info", "matrix"}
    assert "--device" in complete_in_bash(script, ["tessera", "npu", "place", "--d"])
    assert "--json" in complete_in_bash(script, ["tessera", "explain", "--j"])
    # Hidden commands stay hidden.
    assert "man-page" not in complete_in_bash(script, ["tessera", "''"])


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_every_script_names_every_command(tessera, shell):
    script = tessera.run("completion", shell).stdout
    for command in TOP_LEVEL + ["locate", "matrix"]:
        assert re.search(rf"\b{command}\b", script), (shell, command)
    if shutil.which(shell) and shell != "fish":
        assert subprocess.run([shell, "-n"], input=script, text=True).returncode == 0


def test_unknown_shell_is_refused(tessera):
    assert "powershell" in tessera.fails("completion", "powershell")
    tessera.fails("completion")


def test_man_page_documents_every_command_and_option(tessera):
    page = tessera.run("man-page").stdout
    version = tessera.run("--version").stdout.split()[1]
    assert page.startswith(".\\\"") and f'.TH TESSERA 1 "" "tessera {version}"' in page
    for command in ["npu place", "explain npu", "draw npu", "convert", "completion"]:
        assert f'.SS "tessera {command}"' in page
    assert "\\fB\\-\\-keep\\-padding\\fR" in page
    if shutil.which("groff"):
        rendered = subprocess.run(["groff", "-man", "-Tutf8", "-ww"], input=page, capture_output=True,
                                  text=True, timeout=30)
        assert rendered.returncode == 0 and not rendered.stderr, rendered.stderr
        assert "EXIT STATUS" in re.sub(".\x08", "", rendered.stdout)  # without overstrike bold
