"""Regenerates tests/fixtures/npu_oracle/CHIP.json from Sophgo's C models (the tpu-mlir wheel's
libraries, loaded by python/tessera/cmodel.py): for every chip its constants, stride functions,
channel counts, copies of every kind and width and matrix copies, each request with the model's
answer. Fixed seeds, so a rerun with the same wheel writes the same files.

    python3 tools/npu_oracle/run.py [--chips bm1684,bm1688] [--out DIR]

regenerate.sh fetches the wheel first. A place is written as one address, NPU * S + offset
(-1: the element is not in local memory after the copy).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import random
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "python" / "tessera"))
sys.path.insert(0, str(HERE))

import cases  # noqa: E402
import cmodel  # noqa: E402

SEED = 20261127


def addresses(places: list, lmem: int) -> list:
    return [-1 if places[i] < 0 else places[i] * lmem + places[i + 1]
            for i in range(0, len(places), 2)]


def record(model, request: dict, lmem: int) -> dict:
    request = cases.resolve(model, request)
    ask = {k: v for k, v in request.items() if k not in ("kind", "dst_stride_from")}
    answer = model.ask(ask)
    if "places" in answer:
        answer = {"addresses": addresses(answer.pop("places"), lmem), **answer}
    return {"request": request, "answer": answer}


def chip_fixture(chip: str) -> dict:
    library, api = cmodel.LIBRARIES[chip]
    with cmodel.CModel(chip) as model:
        constants = cases.model_constants(model)
        probe = model.ask(cases.w_stride_request(constants))
        info = dict(constants, api=api, unit_w_stride="error" in probe)
        rng = random.Random(f"{SEED}-{chip}")
        requests = cases.sweep(rng, info, copies_per_kind=6, matrices=8, strides=12)
        records = [record(model, r, constants["local_memory_bytes"]) for r in requests]
    return {"chip": chip, "library": library, "api": api, "tpu_mlir": cmodel.TPU_MLIR_VERSION,
            "seed": SEED, "generated_by": "tools/npu_oracle/run.py",
            "constants": constants, "unit_w_stride": info["unit_w_stride"], "records": records}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chips", default=",".join(cmodel.CHIPS))
    parser.add_argument("--out", default=str(ROOT / "tests" / "fixtures" / "npu_oracle"))
    args = parser.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for chip in args.chips.split(","):
        why = cmodel.available(chip)
        if why:
            print(f"error: {why}", file=sys.stderr)
            return 2
        began = time.time()
        fixture = chip_fixture(chip)
        errors = sum(1 for r in fixture["records"] if "error" in r["answer"])
        path = out / f"{chip}.json"
        temporary = path.with_suffix(".json.tmp")
        with open(temporary, "w", encoding="utf-8") as f:
            json.dump(fixture, f, separators=(",", ":"))
            f.write("\n")
        os.replace(temporary, path)
        print(f"{chip}: {len(fixture['records'])} requests, {errors} refused by the model, "
              f"{time.time() - began:.1f} s -> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
