"""The examples in README.md and docs/: found in the Markdown, run, and compared with what the page
shows, so that no example can rot (tests/docs/test_doc_examples.py runs every page).

Conventions (docs/development.md, "Examples that run"):

- ```console blocks are shell sessions. Each `$ ` line is a command (a line ending in `\\` continues
  it); the lines after it, up to the next `$ `, are its output as shown. A command with no output
  shown is only required to succeed. A line `...` stands for any number of lines and `...` inside a
  line for any text. Output that shows an `error:` line expects a failure (exit status 2), any other
  success. Standard output and standard error are compared together, as a terminal shows them.
- ```python blocks run in order, in one namespace per page; ```pycon blocks (`>>> ` prompts) are
  doctests run in the same namespace, their output compared (ELLIPSIS, NORMALIZE_WHITESPACE).
- Every page runs in a fresh temporary directory in which the repository's top-level folders are
  linked, so `tests/inputs/fixtures/...` and `examples/...` resolve as in a clone, and files a page
  writes stay in the temporary directory. `tessera` is the CLI under test, `python3` the Python
  with the package under test.
- `<!-- not run: REASON -->` on the line before a block skips it (keep these rare: installing and
  building). `<!-- excerpt: PATH -->` before a block of any language requires its lines to appear,
  in order and together, in the repository file PATH. `<!-- file: NAME -->` before a block writes
  the block's text to NAME in the page's directory, for the commands after it to read.
- ```sh, ```bash and ```shell blocks are refused: a shell example is a ```console block.

Run one page by hand, printing what differs, or rewrite its shown output with what the commands
print now (review the diff: `...` elisions are lost where a command's output is rewritten):

    python3 tools/docs/doc_examples.py --tessera build/release/tessera docs/tutorial/01-first-layout.md
    python3 tools/docs/doc_examples.py --tessera build/release/tessera --update README.md
"""
from __future__ import annotations

import argparse
import dataclasses
import doctest
import io
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
from contextlib import redirect_stdout

REPO = pathlib.Path(__file__).resolve().parents[2]
RUN_LANGUAGES = {"console", "python", "pycon"}
REFUSED_LANGUAGES = {"sh", "bash", "shell", "zsh"}
MARKER = re.compile(r"<!--\s*(not run|excerpt|file):\s*(.*?)\s*-->")
FENCE = re.compile(r"^(\s*)(```+)\s*([\w+-]*)")


@dataclasses.dataclass
class Block:
    path: pathlib.Path
    line: int  # 1-based line of the opening fence
    language: str
    lines: list[str]
    not_run: str | None = None
    excerpt_of: str | None = None
    file_name: str | None = None

    def where(self) -> str:
        return f"{self.path.relative_to(REPO)}:{self.line}"


def blocks_of(path: pathlib.Path) -> list[Block]:
    """Every fenced block of a Markdown page, with the marker comment before it, if any."""
    lines = path.read_text(encoding="utf-8").split("\n")
    blocks, i, marker = [], 0, None
    while i < len(lines):
        found = MARKER.search(lines[i])
        if found:
            marker = found.groups()
        fence = FENCE.match(lines[i])
        if fence:
            indent, ticks, language = fence.groups()
            body, j = [], i + 1
            while j < len(lines) and not lines[j].strip().startswith(ticks):
                body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j].lstrip())
                j += 1
            block = Block(path, i + 1, language.lower(), body)
            if marker:
                kind, value = marker
                if kind == "not run":
                    block.not_run = value or "no reason given"
                elif kind == "file":
                    block.file_name = value
                else:
                    block.excerpt_of = value
            blocks.append(block)
            marker, i = None, j + 1
            continue
        if lines[i].strip() and not found:
            marker = None
        i += 1
    return blocks


@dataclasses.dataclass
class Command:
    text: str
    expected: list[str]
    line: int


def commands_of(block: Block) -> list[Command]:
    commands: list[Command] = []
    k = 0
    while k < len(block.lines):
        line = block.lines[k]
        if line.startswith("$ "):
            text, start = line[2:], k
            while text.endswith("\\") and k + 1 < len(block.lines):
                k += 1
                text = text[:-1] + "\n" + block.lines[k]
            commands.append(Command(text, [], block.line + 1 + start))
        elif commands:
            commands[-1].expected.append(line)
        elif line.strip():
            raise AssertionError(f"{block.where()}: a console block starts with a `$ ` command, not {line!r}")
        k += 1
    for command in commands:
        while command.expected and not command.expected[-1].strip():
            command.expected.pop()
    return commands


def output_matches(expected: list[str], actual: list[str]) -> bool:
    """Line by line; `...` alone matches any number of lines, `...` in a line any text."""
    def line_matches(pattern: str, line: str) -> bool:
        if "..." not in pattern:
            return pattern.rstrip() == line.rstrip()
        parts = [re.escape(p) for p in pattern.rstrip().split("...")]
        return re.fullmatch(".*".join(parts), line.rstrip(), re.DOTALL) is not None

    def match(i: int, j: int) -> bool:
        if i == len(expected):
            return j == len(actual)
        if expected[i].strip() == "...":
            return any(match(i + 1, k) for k in range(j, len(actual) + 1))
        return j < len(actual) and line_matches(expected[i], actual[j]) and match(i + 1, j + 1)

    return match(0, 0)


class Page:
    """One page's examples, run in order in a fresh directory."""

    def __init__(self, path: pathlib.Path, tessera: str, python: str = sys.executable,
                 json_validator=None):
        self.path = path
        self.tessera = tessera
        self.python = python
        self.json_validator = json_validator  # (argv, stdout) -> None, raises on a mismatch
        self.namespace: dict = {"__name__": "__doc_example__"}

    def environment(self, bin_dir: pathlib.Path) -> dict:
        env = dict(os.environ)
        env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
        env.pop("TESSERA_TARGET", None)
        env["COLUMNS"] = "100"
        return env

    def run(self, update: bool = False) -> list[str]:
        """Runs every example; returns the problems found (empty when all is well)."""
        problems: list[str] = []
        blocks = blocks_of(self.path)
        with tempfile.TemporaryDirectory(prefix="tessera-doc-") as tmp:
            work = pathlib.Path(tmp)
            bin_dir = work / ".bin"
            bin_dir.mkdir()
            (bin_dir / "tessera").symlink_to(pathlib.Path(self.tessera).resolve())
            # A wrapper, not a symlink: a virtual environment's Python finds its packages through
            # the path it was started from.
            (bin_dir / "python3").write_text(f'#!/bin/sh\nexec "{self.python}" "$@"\n')
            (bin_dir / "python3").chmod(0o755)
            for entry in ("examples", "tests", "docs", "bench", "include", "scripts", "tools"):
                if (REPO / entry).exists():
                    (work / entry).symlink_to(REPO / entry)
            env = self.environment(bin_dir)
            old_cwd = os.getcwd()
            os.chdir(work)
            try:
                replacements = []
                for block in blocks:
                    problems += self.check_block(block, work, env, replacements if update else None)
            finally:
                os.chdir(old_cwd)
        if update and replacements:
            self.rewrite(replacements)
        return problems

    def check_block(self, block: Block, work: pathlib.Path, env: dict, replacements) -> list[str]:
        if block.excerpt_of is not None:
            return check_excerpt(block)
        if block.file_name is not None:
            (work / block.file_name).write_text("\n".join(block.lines) + "\n", encoding="utf-8")
            return []
        if block.language in REFUSED_LANGUAGES:
            return [f"{block.where()}: a ```{block.language} block: write shell examples as ```console "
                    "with `$ ` prompts (or mark them <!-- not run: reason -->)"]
        if block.not_run or block.language not in RUN_LANGUAGES:
            return []
        if block.language == "console":
            return self.run_console(block, work, env, replacements)
        if block.language == "python":
            return self.run_python(block)
        return self.run_pycon(block)

    def run_console(self, block: Block, work: pathlib.Path, env: dict, replacements) -> list[str]:
        problems = []
        for command in commands_of(block):
            result = subprocess.run(["bash", "-o", "pipefail", "-c", command.text], cwd=work, env=env,
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600,
                                    stdin=subprocess.DEVNULL)
            actual = result.stdout.decode("utf-8", "replace").rstrip("\n").split("\n")
            if actual == [""]:
                actual = []
            where = f"{self.path.relative_to(REPO)}:{command.line}"
            expects_error = any(line.startswith("error:") for line in command.expected)
            if expects_error and result.returncode != 2:
                problems.append(f"{where}: `{command.text}` should fail with status 2, got {result.returncode}")
            if not expects_error and result.returncode != 0:
                problems.append(f"{where}: `{command.text}` failed with status {result.returncode}:\n"
                                + "\n".join(actual[-20:]))
            if command.expected and not output_matches(command.expected, actual):
                if replacements is not None:
                    replacements.append((command, actual))
                else:
                    problems.append(f"{where}: `{command.text}` printed\n" + "\n".join(actual[:60])
                                    + "\n--- where the page shows\n" + "\n".join(command.expected))
            if self.json_validator is not None:
                problems += self.validate_json(command, work, env, where)
        return problems

    def validate_json(self, command: Command, work: pathlib.Path, env: dict, where: str) -> list[str]:
        """A `tessera ... --json` command's output (before any pipe) must match its schema."""
        first = command.text.split(" | ")[0].strip()
        if not first.startswith("tessera ") or "--json" not in first.split():
            return []
        result = subprocess.run(["bash", "-c", first], cwd=work, env=env, capture_output=True)
        try:
            self.json_validator(first, result.stdout.decode())
        except Exception as error:  # noqa: BLE001 - reported with the page and line
            return [f"{where}: `{first}`: {error}"]
        return []

    def run_python(self, block: Block) -> list[str]:
        source = "\n".join(block.lines)
        try:
            with redirect_stdout(io.StringIO()):
                exec(compile(source, f"{block.where()}", "exec"), self.namespace)
        except Exception as error:  # noqa: BLE001 - reported with the page and line
            return [f"{block.where()}: the Python block raised {type(error).__name__}: {error}"]
        return []

    def run_pycon(self, block: Block) -> list[str]:
        text = "\n".join(block.lines) + "\n"
        test = doctest.DocTestParser().get_doctest(text, self.namespace, block.where(), str(self.path), block.line)
        out = io.StringIO()
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        runner.run(test, out=out.write, clear_globs=False)
        self.namespace.update(test.globs)
        if runner.failures:
            return [f"{block.where()}: doctest failed\n{out.getvalue()}"]
        return []

    def rewrite(self, replacements) -> None:
        lines = self.path.read_text(encoding="utf-8").split("\n")
        for command, actual in sorted(replacements, key=lambda r: -r[0].line):
            first = command.line - 1 + command.text.count("\n") + 1  # 0-based line after the command
            del lines[first:first + len(command.expected)]
            lines[first:first] = actual
        self.path.write_text("\n".join(lines), encoding="utf-8")


def check_excerpt(block: Block) -> list[str]:
    source = REPO / block.excerpt_of
    if not source.is_file():
        return [f"{block.where()}: excerpt of {block.excerpt_of}, which does not exist"]
    have = [line.rstrip() for line in source.read_text(encoding="utf-8").split("\n")]
    want = [line.rstrip() for line in block.lines]
    for start in range(len(have) - len(want) + 1):
        if have[start:start + len(want)] == want:
            return []
    return [f"{block.where()}: these lines are not in {block.excerpt_of} (copy them from it again)"]


def documented_pages() -> list[pathlib.Path]:
    """README.md and every Markdown page under docs/."""
    return [REPO / "README.md"] + sorted((REPO / "docs").rglob("*.md"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tessera", required=True, help="the CLI to run the console examples with")
    parser.add_argument("--update", action="store_true", help="rewrite shown output that differs")
    parser.add_argument("pages", nargs="*", type=pathlib.Path)
    args = parser.parse_args()
    pages = [p.resolve() for p in args.pages] or documented_pages()
    failed = 0
    for page in pages:
        problems = Page(page, args.tessera).run(update=args.update)
        for problem in problems:
            print(problem, end="\n\n")
        failed += bool(problems)
    print(f"{len(pages) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
