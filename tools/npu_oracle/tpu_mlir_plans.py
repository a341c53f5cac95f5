"""Regenerates tests/fixtures/tpu_mlir_plans/: asks tpu-mlir, Sophgo's compiler, for the
local-memory plans of small ONNX models (tpu_mlir_models.py) and keeps only the `*_final.mlir`
file of each compilation (`model_deploy.py --debug` writes it; every op of a layer group carries
its local-memory placement there). Run it through tpu_mlir_plans.sh, which makes the Python 3.10
venv tpu-mlir needs (in the cache, never in the repository).

    python tools/npu_oracle/tpu_mlir_plans.py [--only conv_stem] [--out DIR] [--work DIR]

The int8 models are calibrated offline: run_calibration.py on generated .npz inputs (fixed seed).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import pathlib
import platform
import shutil
import subprocess
import sys
import time

import numpy as np
import onnx

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))

import tpu_mlir_models  # noqa: E402

# (model, chip, quantize): each compiled once. BM1684 takes no F16/BF16.
RUNS = [
    ("conv_stem", "bm1684x", "F32"), ("conv_stem", "bm1688", "F32"), ("conv_stem", "bm1684", "F32"),
    ("conv_stem", "bm1684x", "F16"), ("conv_stem", "bm1688", "BF16"),
    ("resblocks", "bm1684x", "F32"), ("resblocks", "bm1688", "F32"), ("resblocks", "bm1684", "F32"),
    ("resblocks", "bm1684x", "BF16"), ("resblocks", "bm1688", "F16"),
    ("matmul", "bm1684x", "F32"), ("matmul", "bm1688", "F32"), ("matmul", "bm1684", "F32"),
    ("resblocks", "bm1684x", "INT8"), ("resblocks", "bm1688", "INT8"),
    ("resblocks", "bm1684", "INT8"),
]
MAX_FIXTURE_BYTES = 300 * 1024
CALIBRATION_INPUTS = 4


def run(cmd: list, cwd: pathlib.Path, log: pathlib.Path) -> None:
    start = time.time()
    with open(log, "a") as out:
        out.write("$ " + " ".join(cmd) + "\n")
        out.flush()
        done = subprocess.run(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
    print(f"  {' '.join(cmd[:1])} ... {time.time() - start:.0f} s, exit {done.returncode}",
          flush=True)
    if done.returncode != 0:
        sys.exit(f"error: {cmd[0]} failed; see {log}")


def transform(name: str, work: pathlib.Path) -> list:
    model = tpu_mlir_models.MODELS[name]()
    onnx.save(model, work / f"{name}.onnx")
    dims = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
    if not (work / f"{name}.mlir").exists():
        run(["model_transform.py", "--model_name", name, "--model_def", f"{name}.onnx",
             "--input_shapes", str([dims]).replace(" ", ""), "--mlir", f"{name}.mlir"],
            work, work / f"{name}.log")
    return dims


def calibrate(name: str, dims: list, work: pathlib.Path) -> str:
    table = work / f"{name}_cali_table"
    if table.exists():
        return table.name
    data = work / f"{name}_calibration"
    data.mkdir(exist_ok=True)
    rng = np.random.default_rng(20261127)
    for i in range(CALIBRATION_INPUTS):
        np.savez(data / f"input{i}.npz", input=rng.standard_normal(dims).astype(np.float32))
    run(["run_calibration.py", f"{name}.mlir", "--dataset", data.name, "--input_num",
         str(CALIBRATION_INPUTS), "-o", table.name], work, work / f"{name}.log")
    return table.name


def deploy(name: str, chip: str, quantize: str, dims: list, work: pathlib.Path) -> pathlib.Path:
    tag = f"{name}_{chip}_{quantize.lower()}"
    cmd = ["model_deploy.py", "--mlir", f"{name}.mlir", "--quantize", quantize, "--processor",
           chip, "--model", f"{tag}.bmodel", "--debug"]
    if quantize == "INT8":
        cmd += ["--calibration_table", calibrate(name, dims, work)]
    run(cmd, work, work / f"{tag}.log")
    found = sorted(work.glob(f"{name}_{chip}_{quantize.lower()}*final.mlir"))
    if not found:
        sys.exit(f"error: no *_final.mlir for {tag} in {work}")
    return found[0]


def store(final: pathlib.Path, out: pathlib.Path) -> int:
    text = final.read_text()
    if len(text) > MAX_FIXTURE_BYTES:
        sys.exit(f"error: {final.name} is {len(text)} bytes, above {MAX_FIXTURE_BYTES}")
    (out / final.name).write_text(text)
    return len(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="one model name")
    parser.add_argument("--out", default=str(ROOT / "tests/fixtures/tpu_mlir_plans"))
    parser.add_argument("--work", default=os.path.expanduser("~/.cache/tessera/tpu-mlir-plans-work"))
    args = parser.parse_args()
    out = pathlib.Path(args.out)
    work = pathlib.Path(args.work)
    out.mkdir(parents=True, exist_ok=True)
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    dims = {}
    for name, chip, quantize in RUNS:
        if args.only and name != args.only:
            continue
        print(f"{name} {chip} {quantize}", flush=True)
        if name not in dims:
            dims[name] = transform(name, work)
        final = deploy(name, chip, quantize, dims[name], work)
        rows.append((final.name, name, chip, quantize, store(final, out)))
    versions = {p: importlib.metadata.version(p) for p in ("tpu_mlir", "onnx", "onnxruntime", "torch")}
    lines = ["# tpu-mlir's local-memory plans", "",
             "Written by `tools/npu_oracle/tpu_mlir_plans.sh` (do not edit): the `*_final.mlir`",
             "file `model_deploy.py --debug` writes for each small ONNX model of",
             "`tools/npu_oracle/tpu_mlir_models.py`, compiled once per chip and type.", "",
             "Versions: " + ", ".join(f"{k} {v}" for k, v in versions.items()) +
             f", Python {platform.python_version()}.", "",
             "| file | model | chip | quantize | bytes |", "|---|---|---|---|---|"]
    lines += [f"| {f} | {m} | {c} | {q} | {b} |" for f, m, c, q, b in rows]
    if not args.only:
        (out / "README.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
