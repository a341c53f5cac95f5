"""A first draft of a JSON Schema for a new `--json` output, inferred from real outputs, to be
completed by hand (a description for every key) and committed as docs/reference/json/<command>.schema.json.

    python3 tools/docs/draft_schema.py --title 'tessera diff --json' \\
        "build/release/tessera diff 'f32[8,128]{1,0}' 'f32[8,128]{0,1}' --json" more.json ...

Each argument is a command to run or a file holding one output; the more varied the outputs, the
better the draft: a key missing from some of them is optional, and every object refuses keys it
does not list (additionalProperties: false), so a key added later fails the tests until it is
described.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import shlex
import subprocess
import sys

TYPES = {bool: "boolean", int: "integer", float: "number", str: "string", type(None): "null",
         list: "array", dict: "object"}


def infer(samples: list) -> dict:
    kinds = {TYPES[type(s)] for s in samples}
    if {"integer", "number"} <= kinds:
        kinds.discard("integer")
    ordered = sorted(kinds)
    schema: dict = {"type": ordered[0] if len(ordered) == 1 else ordered, "description": ""}
    objects = [s for s in samples if isinstance(s, dict)]
    if objects:
        keys: list[str] = []
        for o in objects:
            keys += [k for k in o if k not in keys]
        schema["properties"] = {k: infer([o[k] for o in objects if k in o]) for k in keys}
        schema["required"] = [k for k in keys if all(k in o for o in objects)]
        schema["additionalProperties"] = False
    items = [x for s in samples if isinstance(s, list) for x in s]
    if items:
        schema["items"] = infer(items)
    return schema


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--title", required=True)
    parser.add_argument("outputs", nargs="+", help="commands (run with a shell) or files of JSON output")
    args = parser.parse_args()
    samples = []
    for source in args.outputs:
        path = pathlib.Path(source)
        text = path.read_text() if path.is_file() else subprocess.run(
            shlex.split(source), check=True, capture_output=True, text=True).stdout
        samples.append(json.loads(text))
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": args.title, **infer(samples)}
    json.dump(schema, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
