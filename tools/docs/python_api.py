"""docs/reference/python-api.md from the installed package: its docstrings, and the signatures of
the .pyi stubs that the build generates from the extension (python/CMakeLists.txt).

Run with the Python that has tessera installed (tools/docs/generate.py does).
"""
from __future__ import annotations

import ast
import importlib
import inspect
import pathlib
import textwrap

REPO = pathlib.Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "reference" / "python-api.md"
MODULES = ["tessera", "tessera.npu"]

# The page is ordered by task, the most used first, and within a task by use: a reader looking for
# "how do I get my array into TPU tiles" finds Layout and to_physical before the error classes.
# A name of __all__ that no task lists goes under "Other", so nothing is ever left out.
TASKS = {
    "tessera": [
        ("Describe a layout and find elements in it", ["Layout", "tpu_layout", "IndexMap", "xla_element_type",
                                                        "numpy_dtype"]),
        ("Put an array into a layout's bytes, and back", ["to_physical", "from_physical", "convert", "Relayout",
                                                          "StridedArray", "empty_bytes", "release_buffers"]),
        ("Explain memory use and compare layouts", ["explain", "explain_input", "diff", "layout_mismatches"]),
        ("Tune conversions to this machine", ["tune", "kernel_classes", "variant_names", "host_description",
                                              "default_wisdom_path", "use_wisdom_file", "save_wisdom",
                                              "export_wisdom", "import_wisdom"]),
        ("Errors", ["Error", "ArgumentError", "BufferSizeError", "DoesNotFitError", "InvalidLayoutError",
                    "IoError", "NotationError", "OutOfRangeError", "SizeOverflowError", "UnsupportedError"]),
    ],
    "tessera.npu": [
        ("Place tensors in NPU local memory", ["Device", "presets", "Tensor", "Matrix", "best_w"]),
        ("Plan several tensors", ["Plan"]),
    ],
}


def by_task(module_name: str, names: list[str]) -> list[tuple[str, list[str]]]:
    """The module's public names grouped as TASKS lists them; the rest, alphabetically, as "Other"."""
    groups = []
    listed = set()
    for title, members in TASKS.get(module_name, []):
        present = [n for n in members if n in names]
        listed.update(present)
        if present:
            groups.append((title, present))
    rest = sorted((n for n in names if n not in listed), key=str.lower)
    if rest:
        groups.append(("Other", rest))
    return groups


def anchor(text: str) -> str:
    """The anchor mkdocs gives a heading (lower case, words joined by '-')."""
    kept = "".join(c for c in text.lower() if c.isalnum() or c in " -_")
    return "-".join(kept.split())


def stub_index(package: pathlib.Path) -> dict[str, dict[str, ast.AST]]:
    """Per source (a pure-Python module, or the extension's stubs): qualified name (`Layout.parse`,
    `Tensor`) -> its definition."""
    files = {"_conversion": package / "_conversion.py", "_explain": package / "_explain.py",
             "_dtypes": package / "_dtypes.py", "npu": package / "npu.py",
             "_tessera": package / "_tessera" / "__init__.pyi", "_tessera.npu": package / "_tessera" / "npu.pyi"}
    index: dict[str, dict[str, ast.AST]] = {}
    for source, path in files.items():
        definitions = index.setdefault(source, {})
        if not path.exists():
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                definitions[node.name] = node
                if isinstance(node, ast.ClassDef):
                    for member in node.body:
                        if isinstance(member, ast.FunctionDef):
                            definitions.setdefault(f"{node.name}.{member.name}", member)
    return index


def definition(index: dict[str, dict[str, ast.AST]], module_name: str, obj, name: str) -> ast.AST | None:
    """Where `name` is defined: the pure-Python module the object comes from, else the stubs."""
    source = getattr(obj, "__module__", "") or ""
    source = source.removeprefix("tessera.").removeprefix("tessera")
    stubs = "_tessera.npu" if module_name == "tessera.npu" else "_tessera"
    for candidate in (source, stubs):
        if candidate in index and name in index[candidate]:
            return index[candidate][name]
    return None


def signature_of(name: str, node: ast.AST | None, obj) -> str:
    if isinstance(node, ast.FunctionDef):
        args = ast.unparse(node.args)
        returns = f" -> {ast.unparse(node.returns)}" if node.returns else ""
        return f"{name}({args}){returns}"
    try:
        return f"{name}{inspect.signature(obj)}"
    except (TypeError, ValueError):
        return f"{name}(...)"


def docstring_of(node: ast.AST | None, obj) -> str:
    doc = ast.get_docstring(node) if isinstance(node, (ast.FunctionDef, ast.ClassDef)) else None
    return inspect.cleandoc(doc or getattr(obj, "__doc__", None) or "")


def is_property(node: ast.AST | None, obj) -> bool:
    if isinstance(node, ast.FunctionDef):
        return any(ast.unparse(d) == "property" for d in node.decorator_list)
    return isinstance(obj, property)


def member_names(cls, node: ast.AST | None) -> list[str]:
    names = [n for n in vars(cls) if not n.startswith("_") or n == "__init__"]
    return sorted(names, key=lambda n: (n != "__init__", n))


def doc_block(doc: str) -> list[str]:
    """A docstring as Markdown: kept as preformatted text (they carry examples and alignment)."""
    if not doc:
        return []
    return ["```text", *doc.split("\n"), "```", ""]


def render() -> str:
    import tessera

    package = pathlib.Path(tessera.__file__).parent
    index = stub_index(package)
    out = ["# Python API", "",
           "<!-- Generated by tools/docs/python_api.py from the installed package's docstrings and",
           "     .pyi stubs; do not edit. Regenerate with: python3 tools/docs/generate.py -->", "",
           "`import tessera`: layouts, index maps, conversions of NumPy arrays, reports and pictures;",
           "`from tessera import npu`: NPU local memory. Every error is a `tessera.Error`, itself a",
           "`ValueError`, with the CLI's message ([failure behaviour](failure-behaviour.md)).", ""]
    modules = [importlib.import_module(name) for name in MODULES]
    public = {module.__name__: [n for n in module.__all__ if not inspect.ismodule(getattr(module, n))]
              for module in modules}
    out += ["| task | names |", "|---|---|"]
    for module in modules:
        for title, names in by_task(module.__name__, public[module.__name__]):
            links = ", ".join(f"`{n}`" for n in names)
            out += [f"| [{title}](#{anchor(title)}) (`{module.__name__}`) | {links} |"]
    out += [""]
    for module in modules:
        module_name = module.__name__
        out += [f"## {module_name}", ""]
        intro = inspect.cleandoc(module.__doc__ or "")
        out += doc_block(intro)
        for title, names in by_task(module_name, public[module_name]):
            out += [f"### {title}", ""]
            out += render_names(module, module_name, names, index)
    return "\n".join(line.rstrip() for line in out).rstrip() + "\n"


def render_names(module, module_name: str, names: list[str], index) -> list[str]:
    out = []
    for name in names:
        obj = getattr(module, name)
        node = definition(index, module_name, obj, name)
        if inspect.isclass(obj):
            bases = [b.__name__ for b in obj.__bases__ if b.__name__ not in ("object", "nb_object")]
            heading = f"class {module_name}.{name}" + (f"({', '.join(bases)})" if bases else "")
            out += [f"#### `{heading}`", ""]
            out += doc_block(docstring_of(node, obj))
            if issubclass(obj, BaseException):
                continue
            for member in member_names(obj, node):
                raw = vars(obj)[member]
                member_node = definition(index, module_name, obj, f"{name}.{member}")
                if is_property(member_node, raw):
                    out += [f"##### `{name}.{member}` (property)", ""]
                else:
                    target = raw.__func__ if isinstance(raw, (staticmethod, classmethod)) else raw
                    label = signature_of(f"{name}.{member}", member_node, target)
                    out += [f"##### `{label}`", ""]
                out += doc_block(docstring_of(member_node, getattr(obj, member, raw)))
        elif callable(obj):
            out += [f"#### `{signature_of(module_name + '.' + name, node, obj)}`", ""]
            out += doc_block(docstring_of(node, obj))
        else:
            out += [f"#### `{module_name}.{name}`", "", f"`{obj!r}`", ""]
    return out


if __name__ == "__main__":
    PAGE.write_text(render(), encoding="utf-8")
