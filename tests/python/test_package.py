"""The installed package: type stubs, typing marker, docstrings, public names."""

import ast
import pathlib

import tessera

PACKAGE = pathlib.Path(tessera.__file__).parent


def test_stubs_are_installed_and_parse():
    for name in ("_tessera/__init__.pyi", "_tessera/npu.pyi"):
        stub = PACKAGE / name
        assert stub.is_file(), f"{name} is missing from the installed package"
        tree = ast.parse(stub.read_text())
        classes = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
        assert classes, name
    top = ast.parse((PACKAGE / "_tessera/__init__.pyi").read_text())
    names = {node.name for node in top.body if isinstance(node, ast.ClassDef)}
    assert {"Layout", "IndexMap", "Relayout", "Error", "InvalidLayoutError"} <= names
    assert (PACKAGE / "py.typed").is_file()


def test_every_public_name_has_a_docstring():
    for name in tessera.__all__:
        value = getattr(tessera, name)
        if callable(value) or isinstance(value, type):
            assert (value.__doc__ or "").strip(), f"tessera.{name} has no docstring"
    for name in ("linear_index", "unindex", "linear_indices", "logical_indices", "info"):
        assert getattr(tessera.Layout, name).__doc__


def test_errors_read_as_tessera_errors():
    assert tessera.InvalidLayoutError.__module__ == "tessera"
    assert issubclass(tessera.InvalidLayoutError, ValueError)
    assert tessera.InvalidLayoutError.__mro__[1] is tessera.Error
