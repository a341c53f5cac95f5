"""docs/reference/cpp-api.md from the public headers' doc comments (include/tessera/).

Each header becomes a section: its opening comment as prose, then its public declarations with
their comments, as a C++ block (includes, namespace lines and private members left out). Nothing
is written by hand, so the page says what the headers say.
"""
from __future__ import annotations

import pathlib
import re

REPO = pathlib.Path(__file__).resolve().parents[2]
HEADERS = REPO / "include" / "tessera"
PAGE = REPO / "docs" / "reference" / "cpp-api.md"

LAYERS = [  # folder, title: the order of the layers (docs/design/architecture.md)
    ("", "Core"),
    ("xla", "XLA layouts"),
    ("npu", "NPU local memory"),
    ("relayout", "Relayout"),
    ("tpu", "TPU targets"),
    ("inputs", "Inputs"),
    ("explain", "Explain"),
    ("render", "Render"),
    ("io", "Files"),
]

# The page starts with the headers a program needs most, by task, in the order a reader uses them;
# every other header follows layer by layer. A listed header that does not exist (moved, renamed)
# is left out here and appears in its layer instead.
TASKS = [
    ("Describe a layout and find elements in it",
     ["xla/notation.h", "xla/tiled_layout.h", "index_map.h", "xla/shape.h", "element_type.h"]),
    ("Convert bytes between layouts",
     ["relayout/relayout_plan.h", "relayout/strided_array.h", "relayout/npy_file.h",
      "relayout/layout_operand.h", "relayout/fill_value.h", "relayout/planner.h"]),
    ("Explain memory use", ["tpu/target.h", "tpu/target_profile.h", "explain/layout_explanation.h",
                            "explain/layout_diff.h", "inputs/input_explanation.h"]),
    ("Place tensors in NPU local memory",
     ["npu/device.h", "npu/local_tensor.h", "npu/matrix_layout.h", "npu/local_plan.h", "npu/plan_check.h"]),
    ("Draw pictures", ["render/xla_picture.h", "render/picture_documents.h"]),
    ("Errors", ["error.h"]),
]


def anchor(text: str) -> str:
    """The anchor mkdocs gives a heading (lower case, words joined by '-')."""
    kept = "".join(c for c in text.lower() if c.isalnum() or c in " -_")
    return "-".join(kept.split())


def header_section(header: pathlib.Path, level: str = "###") -> list[str]:
    relative = header.relative_to(REPO / "include").as_posix()
    lines = header.read_text(encoding="utf-8").split("\n")
    comment, start = opening_comment(lines)
    out = [f"{level} {relative}", ""]
    if comment:
        out += [prose(comment), ""]
    body = public_declarations(lines[start:])
    if body:
        out += ["```cpp", *body, "```", ""]
    return out


def opening_comment(lines: list[str]) -> tuple[list[str], int]:
    """The header's first comment block, as text lines, and the index after it."""
    text, i = [], 0
    while i < len(lines) and lines[i].startswith("//"):
        text.append(lines[i][2:].removeprefix(" "))
        i += 1
    return text, i


def public_declarations(lines: list[str]) -> list[str]:
    """The header without preprocessor lines, namespace lines and private/protected members."""
    kept: list[str] = []
    hiding_at: int | None = None  # brace depth of the class whose private part is being skipped
    depth = 0
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("#") or re.match(r"^(namespace\b.*\{|\}\s*// namespace)", stripped):
            continue
        if re.match(r"^(private|protected)\s*:", stripped):
            hiding_at = depth
            continue
        if re.match(r"^public\s*:", stripped) and hiding_at == depth:
            hiding_at = None
            kept.append(line)
            continue
        opens, closes = line.count("{"), line.count("}")
        if hiding_at is not None and depth + opens - closes < hiding_at:
            hiding_at = None  # the class ends on this line: keep its closing brace
        if hiding_at is None:
            kept.append(line)
        depth += opens - closes
    # collapse blank runs, trim
    out: list[str] = []
    for line in kept:
        if not line.strip() and (not out or not out[-1].strip()):
            continue
        out.append(line.rstrip())
    while out and not out[-1].strip():
        out.pop()
    return out


def prose(comment: list[str]) -> str:
    """A comment block as Markdown: paragraphs kept, indented example lines as a code block."""
    blocks, paragraph, code = [], [], []

    def flush() -> None:
        if paragraph:
            blocks.append(" ".join(paragraph))
            paragraph.clear()
        if code:
            blocks.append("```text\n" + "\n".join(code) + "\n```")
            code.clear()

    for line in comment:
        if line.startswith("  ") or (code and not line.strip() == "" and line.startswith(" ")):
            if paragraph:
                blocks.append(" ".join(paragraph))
                paragraph.clear()
            code.append(line[2:])
        elif not line.strip():
            flush()
        else:
            if code:
                flush()
            paragraph.append(line.strip())
    flush()
    return "\n\n".join(blocks)


def render() -> str:
    out = ["# C++ API", "",
           "<!-- Generated by tools/docs/cpp_api.py from include/tessera/; do not edit.",
           "     Regenerate with: python3 tools/docs/generate.py -->", "",
           "The public headers of `libtessera` ([architecture](../design/architecture.md)),",
           "each with its opening comment and its public declarations as the header writes them. Include",
           "`<tessera/...>`, link `tessera::tessera` ([embedding the library](../howto/embed-cpp.md)).",
           "The headers most programs need come first, by task; the rest follow layer by layer.", ""]
    tasks = [(title, [HEADERS / h for h in headers if (HEADERS / h).exists()]) for title, headers in TASKS]
    out += ["| task | headers |", "|---|---|"]
    for title, headers in tasks:
        names = ", ".join(f"`{h.relative_to(REPO / 'include').as_posix()}`" for h in headers)
        out += [f"| [{title}](#{anchor(title)}) | {names} |"]
    out += [f"| [Everything else, layer by layer](#{anchor('Everything else, layer by layer')}) | |", ""]
    shown = set()
    for title, headers in tasks:
        out += [f"## {title}", ""]
        for header in headers:
            out += header_section(header)
            shown.add(header)
    out += ["## Everything else, layer by layer", ""]
    for folder, title in LAYERS:
        directory = HEADERS / folder if folder else HEADERS
        headers = [h for h in sorted(directory.glob("*.h")) if h not in shown]
        if not headers:
            continue
        out += [f"### {title}", ""]
        for header in headers:
            out += header_section(header, "####")
    known = {f for f, _ in LAYERS}
    stray = sorted(p.parent.name for p in HEADERS.glob("*/*.h") if p.parent.name not in known)
    if stray:
        raise SystemExit(f"tools/docs/cpp_api.py: add the folder(s) {sorted(set(stray))} to LAYERS")
    return "\n".join(out).rstrip() + "\n"


if __name__ == "__main__":
    PAGE.write_text(render(), encoding="utf-8")
