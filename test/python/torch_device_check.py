"""GPU machine: CUDA tensors given to ops the PyTorch extension cannot run on CUDA.

  python3 test/python/torch_device_check.py no-kernel <libopforge_torch.so> <op_snake>...
      ops whose spec names no kernels.cuda: on CUDA tensors, both opforge_ops.<op>() (the Python
      layer) and torch.ops.opforge.<op> (the extension's CUDA-key kernel) raise RuntimeError with
      "<Op> has no CUDA kernel (its spec names no kernels.cuda) ...", never the dispatcher's
      NotImplementedError; under torch.compile too (torch >= 2.4); on CPU tensors they still run.
  python3 test/python/torch_device_check.py no-cuda-build <libopforge_torch.so> <op_snake>...
      ops with kernels.cuda in an extension built without CUDA: "built without CUDA".
Prints one line per check and a JSON summary last; exits 1 on any failure.
"""

from __future__ import annotations

import importlib
import json
import os
import sys

import torch

# The library under test is loaded below: the package must not load the project's default one
# (build/torch, which `opforge test` in the repo leaves) first, which would define the ops twice.
os.environ["OPFORGE_TORCH_NO_EXTENSION"] = "1"
import opforge_ops  # noqa: E402
from opforge_ops import _runtime as rt  # noqa: E402

results = {"ok": 0, "failed": 0}


def record(name: str, ok: bool, detail: str = "") -> None:
    results["ok" if ok else "failed"] += 1
    print(f"{'ok  ' if ok else 'FAIL'} {name}{(': ' + detail) if detail else ''}", flush=True)


def case_inputs(op, device: str):
    case = op.tests[0]
    out = []
    for spec, given in zip(op.inputs, case.inputs):
        if given is None:
            out.append(None)
            continue
        shape = given[0]
        dtype = rt.TORCH_DTYPES[spec.dtypes[0] if spec.type_var is None else case.dtypes.get(spec.type_var, spec.dtypes[0])]
        out.append(torch.rand(shape, dtype=torch.float64).to(dtype).to(device))
    return out, case.attributes


def raises(fn, want: str):
    try:
        fn()
    except NotImplementedError as e:  # the dispatcher's "Could not run ... 'CUDA' backend"
        return False, f"NotImplementedError: {str(e).splitlines()[0]}"
    except RuntimeError as e:
        msg = str(e)
        return want in msg, msg.splitlines()[0]
    return False, "no error"


def main() -> int:
    mode, lib, snakes = sys.argv[1], sys.argv[2], sys.argv[3:]
    opforge_ops.load_library(lib)
    if not torch.cuda.is_available():
        record("cuda available", False)
        return 1
    for snake in snakes:
        op = importlib.import_module(f"opforge_ops.ops.{snake}")._OP
        fn = getattr(opforge_ops, snake)
        raw = getattr(torch.ops.opforge, snake)
        want = rt.no_cuda_kernel_message(op) if mode == "no-kernel" else f"{op.name}: this extension was built without CUDA"
        cuda_in, attrs = case_inputs(op, "cuda")
        ok, msg = raises(lambda: fn(*cuda_in, **attrs), want)
        record(f"{op.name} opforge_ops on CUDA", ok, msg)
        ok, msg = raises(lambda: raw(*cuda_in, **rt.check_attrs(op, attrs)), want)
        record(f"{op.name} torch.ops.opforge on CUDA", ok, msg)
        if rt.HAS_CUSTOM_OP and hasattr(torch, "compile"):
            # fullgraph off: dynamo may not trace the raise; the error must reach the caller either way.
            compiled = torch.compile(lambda *xs: fn(*xs, **attrs))
            ok, msg = raises(lambda: compiled(*cuda_in), want)
            record(f"{op.name} torch.compile on CUDA", ok, msg)
        cpu_in, _ = case_inputs(op, "cpu")
        try:
            fn(*cpu_in, **attrs)
            record(f"{op.name} CPU still runs", True)
        except Exception as e:  # noqa: BLE001
            record(f"{op.name} CPU still runs", False, repr(e))
    print(json.dumps(results))
    return 0 if results["failed"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
