"""Writes every spec test case of a generated opforge_ops package as files other runtimes read.

For each op and case: the inputs exactly as torch_ops_check.py makes them (seeded torch data),
the spec's PyTorch reference outputs, the full attributes and the tolerances. Node and ONNX
Runtime tests run the same inputs through their backend and compare with these outputs, so
every backend is held to one reference.

Layout: DIR/<snake>/<k>.json with {"attributes" (all, defaults filled in), "given" (those the case
sets: backends must fill in the rest themselves), "rtol", "atol", "inputs": {name: null |
{dtype, dims, file}}, "outputs": {name: {dtype, dims, file}}}; tensors as raw little-endian
bytes (bool as 0/1 bytes, bfloat16 as its 16 bits).

Usage: PYTHONPATH=out/python python3 test/python/dump_cases.py DIR
"""

from __future__ import annotations

import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_ops_check import as_tuple, make_inputs  # noqa: E402

NAMES = {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16", torch.float64: "float64",
         torch.int8: "int8", torch.uint8: "uint8", torch.int32: "int32", torch.int64: "int64", torch.bool: "bool"}


def write(path: str, t: torch.Tensor) -> dict:
    t = t.detach().cpu().contiguous()
    raw = t.view(torch.int16) if t.dtype == torch.bfloat16 else t
    with open(path, "wb") as f:
        f.write(raw.numpy().tobytes())
    return {"dtype": NAMES[t.dtype], "dims": list(t.shape), "file": os.path.basename(path)}


def main() -> int:
    out = sys.argv[1]
    os.environ.setdefault("OPFORGE_TORCH_NO_EXTENSION", "1")
    import opforge_ops as oo

    count = 0
    for op in oo.OPS.values():
        d = os.path.join(out, op.snake)
        os.makedirs(d, exist_ok=True)
        for k, case in enumerate(op.tests):
            attrs = {a.name: case.attributes.get(a.name, a.default) for a in op.attributes}
            inputs = make_inputs(op, case, "cpu")
            want = as_tuple(op.reference(*inputs, **attrs))
            doc = {
                "attributes": attrs, "given": dict(case.attributes), "rtol": case.rtol, "atol": case.atol,
                "inputs": {i.name: None if t is None else write(os.path.join(d, f"{k}.in.{i.name}.bin"), t)
                           for i, t in zip(op.inputs, inputs)},
                "outputs": {o.name: write(os.path.join(d, f"{k}.out.{o.name}.bin"), w) for o, w in zip(op.outputs, want)},
            }
            with open(os.path.join(d, f"{k}.json"), "w", encoding="utf-8") as f:
                json.dump(doc, f, ensure_ascii=False)
            count += 1
    print(json.dumps({"cases": count}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
