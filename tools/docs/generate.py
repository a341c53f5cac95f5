"""Regenerates the documentation's generated pages: the CLI reference (from the command registry),
the JSON outputs (from the schemas), the C++ API (from the public headers), the places made from the
TPU generation table (tpu_targets.py), the variant tokens of docs/howto/tuning.md (from `tessera tune
--list`) and the Python API (from the installed package; skipped with a note when tessera is not
importable).

    python3 tools/docs/generate.py --tessera build/release/tessera
    build/python-venv/bin/python tools/docs/generate.py --tessera build/release/tessera  # with the Python API
"""
import argparse
import pathlib
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import cpp_api  # noqa: E402
import json_outputs  # noqa: E402
import tpu_targets  # noqa: E402
import variant_tokens  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[2]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tessera", default=str(REPO / "build" / "release" / "tessera"))
    args = parser.parse_args()
    cli = subprocess.run([args.tessera, "cli-reference"], check=True, capture_output=True, text=True).stdout
    (REPO / "docs" / "reference" / "cli.md").write_text(cli, encoding="utf-8")
    listed = subprocess.run([args.tessera, "tune", "--list"], check=True, capture_output=True, text=True).stdout
    variant_tokens.PAGE.write_text(variant_tokens.page_with(listed), encoding="utf-8")
    chips = subprocess.run([args.tessera, "npu", "chips"], check=True, capture_output=True, text=True).stdout
    (REPO / "docs" / "reference" / "npu-chips.md").write_text(chips, encoding="utf-8")
    json_outputs.PAGE.write_text(json_outputs.render(), encoding="utf-8")
    cpp_api.PAGE.write_text(cpp_api.render(), encoding="utf-8")
    for path, text in tpu_targets.pages(args.tessera).items():
        path.write_text(text, encoding="utf-8")
    try:
        import python_api
        python_api.PAGE.write_text(python_api.render(), encoding="utf-8")
    except ImportError as error:
        print(f"Python API not regenerated ({error}): run this with the Python that has tessera installed")
    print("regenerated docs/reference/{cli,npu-chips,json-outputs,cpp-api,python-api}.md, "
          "docs/howto/tuning.md's tokens and the TPU generation table's places "
          "(docs/reference/tpu-targets.md, python/tessera/oracle.py)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
